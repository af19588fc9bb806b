-- Headless Neovim (0.7.2 from Debian; newer ones too) with the msport language server, as a
-- user's config would start it: diagnostics, hover, a quick fix written to disk, then settings
-- changed with workspace/didChangeConfiguration. Everything seen is written to $E2E_OUT as JSON;
-- tests/e2e/test_editors.py compares it with msport's own analysis.
--
-- usage: E2E_OUT=out.json E2E_SERVER_CMD='["python","-m","msport","serve"]' E2E_...=... \
--        nvim --headless -u tests/e2e/nvim/init.lua FILE.py

-- ftplugin/python.vim probes the python3 provider (1.5 s+ with pyenv shims): not needed here.
vim.g.loaded_python3_provider = 0
vim.g.loaded_ruby_provider = 0
vim.g.loaded_node_provider = 0
vim.g.loaded_perl_provider = 0

local env = function(name)
  local value = os.getenv(name)
  assert(value, name .. ' is not set')
  return value
end
local OUT = env('E2E_OUT')
local t0 = vim.loop.hrtime()
local function ms() return math.floor((vim.loop.hrtime() - t0) / 1e6) end
local result = { ok = false, steps = {} }

local function finish(code)
  result.total_ms = ms()
  local f = assert(io.open(OUT, 'w'))
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd((code == 0) and 'qall!' or ('cquit! ' .. code))
end

-- Never hang CI.
vim.defer_fn(function() result.error = 'watchdog: more than 60 s'; finish(3) end, 60000)

local function snapshot(bufnr)
  return vim.tbl_map(function(d)
    -- lnum/col are 0-based, col in bytes: Neovim converted the server's UTF-16 columns.
    local lsp = (d.user_data or {}).lsp or {}
    return { lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col, message = d.message,
             code = d.code or lsp.code, source = d.source, severity = d.severity,
             href = (lsp.codeDescription or {}).href }
  end, vim.diagnostic.get(bufnr))
end

local function count_is(bufnr, n)
  return function() return #vim.diagnostic.get(bufnr) == n end
end

local function has_message(bufnr, text)
  return function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.message == text then return true end
    end
    return false
  end
end

local function run()
  local bufnr = vim.api.nvim_get_current_buf()
  local settings = { msport = vim.empty_dict() }
  local client_id = vim.lsp.start_client({
    name = 'msport',
    cmd = vim.fn.json_decode(env('E2E_SERVER_CMD')),
    root_dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':p:h'),
    settings = settings,
    on_stderr = function() end,
  })
  assert(client_id, 'start_client failed')
  vim.lsp.buf_attach_client(bufnr, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  local encoding = client.offset_encoding or 'utf-16'

  -- 1. diagnostics: pushed to 0.7 (no pull diagnostics there), pulled by 0.10+
  local n_initial = tonumber(env('E2E_COUNT_INITIAL'))
  result.initial_complete = vim.wait(30000, count_is(bufnr, n_initial), 50)
  result.steps.diagnostics_ms = ms()
  result.diagnostics = snapshot(bufnr)
  result.offset_encoding = client.offset_encoding

  -- 2. hover on a warning, at the position the test gives (UTF-16 units, as negotiated)
  local function hover_at(line, character)
    local answers = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', {
      textDocument = vim.lsp.util.make_text_document_params(bufnr),
      position = { line = tonumber(line), character = tonumber(character) },
    }, 10000)
    local answer = answers and answers[client_id] and answers[client_id].result
    return answer and answer.contents and answer.contents.value or vim.NIL
  end
  result.hover = hover_at(env('E2E_WARN_LINE'), env('E2E_HOVER_CHAR_INITIAL'))
  result.steps.hover_ms = ms()

  -- 3. quick fix on the finding the test names: the code actions for its diagnostic
  local fix_line = tonumber(env('E2E_FIX_LINE'))
  local api = env('E2E_FIX_API')
  local target
  for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = fix_line })) do
    if d.message:find(api, 1, true) then
      -- back to an LSP diagnostic: the range in the negotiated encoding, as the request needs it
      local range = vim.lsp.util.make_given_range_params({ d.lnum + 1, d.col }, { d.end_lnum + 1, d.end_col }, bufnr, encoding).range
      target = { range = range, message = d.message, code = d.code, source = d.source, severity = d.severity,
                 data = ((d.user_data or {}).lsp or {}).data }
    end
  end
  if not target then result.error = 'no diagnostic for ' .. api .. ' on line ' .. fix_line; return finish(1) end
  local ca = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', {
    textDocument = vim.lsp.util.make_text_document_params(bufnr),
    range = target.range,
    context = { diagnostics = { target }, only = { 'quickfix' } },
  }, 10000)
  local actions = ca and ca[client_id] and ca[client_id].result or {}
  result.code_actions = vim.tbl_map(function(a) return { title = a.title, kind = a.kind } end, actions)
  local chosen
  for _, a in ipairs(actions) do
    if a.title:find(env('E2E_FIX_TITLE'), 1, true) then chosen = a end
  end
  if not chosen then result.error = 'no code action titled ' .. env('E2E_FIX_TITLE'); return finish(1) end
  vim.lsp.util.apply_workspace_edit(chosen.edit, encoding)
  vim.cmd('silent write')
  result.steps.fix_ms = ms()
  -- the server re-publishes for the edited text
  result.after_fix_complete = vim.wait(20000, count_is(bufnr, tonumber(env('E2E_COUNT_AFTER_FIX'))), 50)
  result.diagnostics_after_fix = #vim.diagnostic.get(bufnr)

  -- 4. settings: what lspconfig does on `settings` changes, as a user would in their config
  local function reconfigure(values)
    client.config.settings = { msport = values }
    client.settings = client.config.settings  -- 0.11 answers workspace/configuration from here
    client.notify('workspace/didChangeConfiguration', { settings = client.config.settings })
    -- Neovim 0.10+ pulls diagnostics and has no workspace/diagnostic/refresh: it pulls again on
    -- an edit or a reload, which is what docs/editors.md tells its users to do (`:edit`). A reload
    -- detaches clients; vim.lsp.enable re-attaches them itself, this hand-attached one is re-attached.
    if vim.fn.has('nvim-0.10') == 1 then
      vim.cmd('edit')
      vim.lsp.buf_attach_client(bufnr, client_id)
    end
  end
  reconfigure({ targetVersion = env('E2E_VERSION') })
  result.version_applied = vim.wait(20000, has_message(bufnr, env('E2E_VERSION_MARK')), 50)
  result.steps.version_ms = ms()
  result.hover_after_version = hover_at(env('E2E_HOVER_LINE'), env('E2E_HOVER_CHAR'))

  reconfigure({ targetVersion = env('E2E_VERSION'), backend = env('E2E_BACKEND_ID') })
  result.backend_applied = vim.wait(20000, count_is(bufnr, tonumber(env('E2E_COUNT_AFTER_BACKEND'))), 50)
  reconfigure({ targetVersion = env('E2E_VERSION'), backend = env('E2E_BACKEND_ID'), ignore = { env('E2E_IGNORE_CODE') } })
  result.ignore_applied = vim.wait(20000, count_is(bufnr, tonumber(env('E2E_COUNT_AFTER_IGNORE'))), 50)
  result.steps.ignore_ms = ms()
  result.diagnostics_after_ignore = snapshot(bufnr)

  result.ok = true
  vim.lsp.stop_client(client_id)
  vim.wait(3000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
  finish(0)
end

vim.api.nvim_create_autocmd('VimEnter', { once = true, callback = function()
  local ok, err = pcall(run)
  if not ok then result.error = tostring(err); finish(2) end
end })
