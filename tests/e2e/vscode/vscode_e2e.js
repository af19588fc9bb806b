// Drives a real VS Code (code-server) in Debian's Chromium with Playwright, as a user would:
// open a PyTorch file, read the squiggles, hover, apply a quick fix, change msport's settings
// through its commands and settings.json, and record what the workbench shows. Assertions on
// the recorded JSON are made by tests/e2e/test_editors.py, which knows what msport should report.
//
// usage: node vscode_e2e.js  (configuration in E2E_* environment variables, see CONFIG below)
const fs = require('fs');
const path = require('path');
const { launch, installMarks, marks } = require('./browser');

const env = (name, fallback) => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};
const CONFIG = {
  base: env('E2E_BASE'),                 // http://127.0.0.1:PORT of code-server
  out: env('E2E_OUT'),                   // results folder: vscode.json + screenshots
  folder: env('E2E_FOLDER'),             // the workspace folder opened in VS Code
  file: env('E2E_FILE'),                 // file name inside it
  warnCode: env('E2E_WARN_CODE'),        // a code with warning severity in that file (e.g. MS102)
  otherFile: env('E2E_OTHER_FILE'),      // a second file in the folder, never opened (Scan Workspace)
  fixAt: env('E2E_FIX_AT'),              // "line:col" (1-based) of the finding to quick-fix
  fixTitle: env('E2E_FIX_TITLE'),        // title of the code action to apply
  fixExpect: env('E2E_FIX_EXPECT'),      // text the file on disk must contain after the fix
  hoverAt: env('E2E_HOVER_AT'),          // "line:col" of the warning after the fix, hovered with the keyboard
  cardInitial: env('E2E_CARD_INITIAL'),  // text of msport's hover card there, with the defaults
  version: env('E2E_VERSION'),           // target version to pick in "Select Target Version"
  cardVersion: env('E2E_CARD_VERSION'),  // ... the card's text after that
  backend: env('E2E_BACKEND'),           // backend label to pick in "Select Backend" (e.g. CPU)
  cardBackend: env('E2E_CARD_BACKEND'),  // ... the card's text after that
  ignoreCode: env('E2E_IGNORE_CODE'),    // code written to msport.ignore in .vscode/settings.json
  // "errors,warnings" the status bar may count (open file alone | whole folder), ';'-separated
  problemsInitial: env('E2E_PROBLEMS_INITIAL').split(';'),
  problemsAfterIgnore: env('E2E_PROBLEMS_AFTER_IGNORE').split(';'),
  pyproject: env('E2E_PYPROJECT'),       // [tool.msport] written into the folder after that
  problemsAfterPyproject: env('E2E_PROBLEMS_AFTER_PYPROJECT').split(';'),
};
fs.mkdirSync(CONFIG.out, { recursive: true });

const t0 = Date.now();
const result = { ok: false, steps: {}, shots: [] };
const mark = (step) => { result.steps[step] = Date.now() - t0; };
const clean = (s) => s.replace(/\u00a0/g, ' ').replace(/[ \t]+/g, ' ').trim();

async function shot(page, name) {
  const file = path.join(CONFIG.out, `${String(result.shots.length + 1).padStart(2, '0')}_${name}.png`);
  await page.screenshot({ path: file });
  result.shots.push(path.basename(file));
}

// VS Code prefixes a status-bar item's id with the extension's id.
const STATUS = '[id="msport-dev.msport.msport.status"]';

async function statusText(page) {
  return clean(await page.locator(STATUS).innerText());
}

/** "Problems" counters in VS Code's status bar: [errors, warnings] (hints are never counted). */
async function problemCounts(page) {
  const label = await page.locator('[id="status.problems"]').getAttribute('aria-label');
  const errors = /Errors?: (\d+)/i.exec(label || '');
  const warnings = /Warnings?: (\d+)/i.exec(label || '');
  return [errors ? Number(errors[1]) : 0, warnings ? Number(warnings[1]) : 0];
}

async function waitFor(predicate, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await predicate();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function runCommand(page, title) {
  const input = page.locator('.quick-input-widget input');
  // F1 is lost when the keyboard focus is still inside a webview (the report's) that was just
  // left: give the workbench the focus back and press it again, a few times at most.
  for (let attempt = 0; ; attempt++) {
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ state: 'visible', timeout: attempt < 2 ? 5000 : 10000 });
      break;
    } catch (error) {
      if (attempt >= 2) throw error;
      await page.keyboard.press('Escape');
      await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    }
  }
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Enter');
}

/** The labels a quick pick offers (after a command opened it). */
async function quickPickLabels(page) {
  const rows = page.locator('.quick-input-widget .monaco-list-row');
  await rows.first().waitFor({ state: 'visible', timeout: 10000 });
  return (await rows.allInnerTexts()).map(clean);
}

/** Filters the open quick pick to `label` and accepts it; `last` false when another pick follows. */
async function pick(page, label, last = true) {
  const input = page.locator('.quick-input-widget input');
  await input.fill(label);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Enter');
  if (last) await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10000 });
}

/**
 * Go to "line:col" with Ctrl+G. The quick input closes whenever the focus moves (it is not
 * `ignoreFocusOut`): a toast, the Output panel of a restarting server or a settings reload can
 * take the focus between Ctrl+G and typing. So each attempt checks what happened, and a closed
 * input, or a cursor that did not arrive, is retried from the start.
 */
async function gotoPosition(page, at) {
  const input = page.locator('.quick-input-widget input');
  const [line, col] = at.split(':');
  const cursor = page.locator('[id="status.editor.selection"]', { hasText: `Ln ${line}, Col ${col}` });
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press('Control+G');
      await input.waitFor({ state: 'visible', timeout: 5000 });
      await input.fill(`:${at}`, { timeout: 2000 });
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 5000 });
      // The cursor is there (the status bar's "Ln, Col"), or Ctrl+. may ask too early.
      await cursor.waitFor({ state: 'visible', timeout: 5000 });
      return;
    } catch (e) {
      // What had the focus instead, to name the cause in the results (vscode.json).
      const focus = await page.evaluate(() => {
        const el = document.activeElement;
        const toasts = [...document.querySelectorAll('.notification-toast')].map((t) => t.innerText.slice(0, 80));
        return `${el ? el.tagName + '.' + String(el.className).slice(0, 60) : 'nothing'}; toasts: ${JSON.stringify(toasts)}`;
      }).catch(() => 'unknown');
      (result.goto_failures ||= []).push(`${at} attempt ${attempt}: ${String(e.message).split('\n')[0]}; focus: ${focus}`);
      if (attempt === 4) throw e;
      await page.keyboard.press('Escape');
      await page.waitForTimeout(300 * attempt);
    }
  }
}

/** Hover at a position with the keyboard (Ctrl+K Ctrl+I), return the hover's text. */
async function keyboardHover(page, at, mustContain) {
  await page.keyboard.press('Escape');
  await gotoPosition(page, at);
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+I');
  const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: mustContain }).first();
  await hover.waitFor({ state: 'visible', timeout: 20000 });
  const text = clean(await hover.innerText());
  return text;
}

async function problemRows(page) {
  const rows = page.locator('.markers-panel .monaco-list-row');
  return (await rows.allInnerTexts()).map(clean);
}

(async () => {
  const ctx = await launch();
  await installMarks(ctx);
  const watchdog = setTimeout(() => {
    result.error = 'watchdog: the whole run took more than 280 s';
    fs.writeFileSync(path.join(CONFIG.out, 'vscode.json'), JSON.stringify(result, null, 2));
    process.exit(3);
  }, 280000);
  const page = ctx.pages()[0] || (await ctx.newPage());
  try {
    page.on('console', (m) => {
      if (m.type() === 'error' && /msport/i.test(m.text())) (result.console ||= []).push(m.text().slice(0, 300));
    });
    await page.goto(`${CONFIG.base}/?folder=${encodeURIComponent(CONFIG.folder)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    const fileRow = `.explorer-folders-view .monaco-list-row[aria-label="${CONFIG.file}"]`;
    await page.waitForSelector(fileRow, { timeout: 60000 });
    mark('workbench');

    // 1. open the file: msport's squiggles appear and the status bar shows version and backend
    await page.dblclick(fileRow);
    await page.waitForSelector('.monaco-editor .view-lines', { timeout: 30000 });
    await page.waitForSelector('.monaco-editor .squiggly-warning', { timeout: 60000 });
    mark('squiggle');
    // The window's first file: the extension activated with the window (workspaceContains), so
    // its server may have been starting while the user looked for the file.
    result.timing_open = await marks(page, 30000);
    // The item shows a check mark once the server runs (a spinner while it starts).
    await page.locator(`${STATUS} .codicon-check, ${STATUS} .codicon-warning`).first().waitFor({ timeout: 30000 });
    result.status_initial = await statusText(page);
    result.status_aria = await page.locator(STATUS).getAttribute('aria-label');
    // Errors and warnings of the open file alone, or of the whole folder once the workspace
    // diagnostics arrive: either is right, anything else is not.
    result.problem_counts_initial = await waitFor(async () => {
      const counts = (await problemCounts(page)).join(',');
      return CONFIG.problemsInitial.includes(counts) ? counts : null;
    }, 30000, `problem counts ${CONFIG.problemsInitial.join(' or ')} in the status bar`);
    await shot(page, 'squiggles');

    // 2. hover the first warning squiggle with the mouse: diagnostic message + msport's card
    const box = await page.locator('.monaco-editor .squiggly-warning').first().boundingBox();
    const hx = box.x + box.width / 2;
    const hy = box.y + box.height / 2;
    await page.mouse.move(hx - 30, hy);
    await page.mouse.move(hx, hy, { steps: 5 });
    // The diagnostic's part shows at once; msport's card follows when the server answers.
    const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: CONFIG.cardInitial }).first();
    await hover.waitFor({ state: 'visible', timeout: 20000 });
    result.hover_warning = clean(await hover.innerText());
    mark('hover');
    await shot(page, 'hover');
    await page.mouse.move(5, 5);
    await page.keyboard.press('Escape');

    // 3. Problems panel lists the warnings with their codes
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.markers-panel .monaco-list-row', { hasText: CONFIG.warnCode }).first()
      .waitFor({ state: 'visible', timeout: 20000 });
    result.problems_initial = await problemRows(page);
    await shot(page, 'problems');
    await page.keyboard.press('Control+Shift+M');
    // Focus back into the editor (the file's tab).
    await page.locator('.tabs-container .tab', { hasText: CONFIG.file }).first().click();

    // 4. quick fix: Ctrl+. on the finding, choose msport's action, save, read the file from disk
    await gotoPosition(page, CONFIG.fixAt);
    // The lightbulb VS Code shows for the quick fixes on the cursor's line: clicking it opens the
    // menu people look in (the same one as Ctrl+.). VS Code sometimes cancels the code-action
    // request right after the cursor moved (the log shows $/cancelRequest): ask again then.
    const menu = page.locator('.action-widget .monaco-list-row');
    const bulb = page.locator('.monaco-editor .lightBulbWidget').first();
    // The menu can also open before msport's fix is in it (a code-action request answered while
    // the file's analysis was still settling), or close under the keys: each attempt reopens it
    // and goes on only when the fix is listed.
    result.quickfix_menus = [];
    for (let attempt = 1; ; attempt++) {
      try {
        await bulb.waitFor({ state: 'visible', timeout: 5000 });
        await bulb.click();
        await menu.first().waitFor({ state: 'visible', timeout: 5000 });
        const rows = (await menu.allInnerTexts()).map(clean);
        result.quickfix_menus.push(rows);
        if (!rows.some((t) => t.includes(CONFIG.fixTitle))) throw new Error(`the menu lacks "${CONFIG.fixTitle}"`);
        result.quickfix_attempts = attempt;
        result.quickfix_menu = rows;
        await shot(page, 'quickfix_menu');
        // The menu has a pre-focused row; an overlay swallows clicks, so move with the keyboard.
        await waitFor(async () => {
          if (!(await menu.first().isVisible())) throw new Error('the quick-fix menu closed');
          const focused = page.locator('.action-widget .monaco-list-row.focused');
          const text = (await focused.count()) ? clean(await focused.first().innerText()) : '';
          if (text.includes(CONFIG.fixTitle)) return true;
          await page.keyboard.press('ArrowDown');
          return false;
        }, 10000, `the code action "${CONFIG.fixTitle}" focused in the menu`);
        break;
      } catch (e) {
        (result.quickfix_failures ||= []).push(String(e.message).split('\n')[0]);
        if (attempt === 5) throw e;
        await page.keyboard.press('Escape');
        await page.waitForTimeout(500 * attempt);
        await gotoPosition(page, CONFIG.fixAt);
      }
    }
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+S');
    const target = path.join(CONFIG.folder, CONFIG.file);
    await waitFor(() => fs.readFileSync(target, 'utf8').includes(CONFIG.fixExpect), 20000, 'the fixed file on disk');
    mark('quickfix');
    await shot(page, 'after_fix');

    // 5. keyboard hover on the warning (moved by the fix's import line): the card as before
    result.hover_keyboard = await keyboardHover(page, CONFIG.hoverAt, CONFIG.cardInitial);
    await shot(page, 'hover_keyboard');
    await page.keyboard.press('Escape');

    // 6. "Select Target Version" from the command palette changes the version the server uses
    await runCommand(page, 'msport: Select Target Version');
    result.version_choices = await quickPickLabels(page);
    await pick(page, CONFIG.version);
    result.status_after_version = await waitFor(async () => {
      const text = await statusText(page);
      return text.includes(`msport ${CONFIG.version} `) ? text : '';
    }, 20000, 'the new version in the status bar');
    result.hover_after_version = await keyboardHover(page, CONFIG.hoverAt, CONFIG.cardVersion);
    mark('version');
    await shot(page, 'after_version');
    await page.keyboard.press('Escape');

    // 7. "Select Backend" likewise, reached through the status-bar item's menu
    await page.locator(STATUS).click();
    result.status_menu = await quickPickLabels(page);
    await pick(page, 'Select Backend', false);
    await pick(page, CONFIG.backend);
    result.status_after_backend = await waitFor(async () => {
      const text = await statusText(page);
      return text.endsWith(CONFIG.backend) ? text : '';
    }, 20000, 'the new backend in the status bar');
    result.hover_after_backend = await keyboardHover(page, CONFIG.hoverAt, CONFIG.cardBackend);
    await shot(page, 'after_backend');
    mark('backend');
    await page.keyboard.press('Escape');

    // 8. msport.ignore edited in .vscode/settings.json, as a user would: those warnings go away
    const settingsFile = path.join(CONFIG.folder, '.vscode', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
    result.workspace_settings_before_ignore = { ...settings };
    settings['msport.ignore'] = [CONFIG.ignoreCode];
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    result.problem_counts_after_ignore = await waitFor(async () => {
      const counts = (await problemCounts(page)).join(',');
      return CONFIG.problemsAfterIgnore.includes(counts) ? counts : null;
    }, 30000, `problem counts ${CONFIG.problemsAfterIgnore.join(' or ')} after msport.ignore`);
    await page.keyboard.press('Control+Shift+M');
    await page.waitForTimeout(500);
    result.problems_after_ignore = await problemRows(page);
    mark('ignore');
    await shot(page, 'after_ignore');
    await page.keyboard.press('Control+Shift+M');

    // 9. pyproject.toml written on disk: the extension has the server re-check the open file
    fs.writeFileSync(path.join(CONFIG.folder, 'pyproject.toml'), CONFIG.pyproject);
    result.problem_counts_after_pyproject = await waitFor(async () => {
      const counts = (await problemCounts(page)).join(',');
      return CONFIG.problemsAfterPyproject.includes(counts) ? counts : null;
    }, 30000, `problem counts ${CONFIG.problemsAfterPyproject.join(' or ')} after pyproject.toml`);
    mark('pyproject');

    // 10. Scan Workspace: offered in the palette only when the server implements it; the other
    // file of the workspace (never opened) then shows in the Problems panel
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input').fill('>msport: Scan Workspace');
    await page.waitForTimeout(800);
    result.scan_in_palette = (await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'msport: Scan Workspace' }).count()) > 0;
    if (result.scan_in_palette) {
      await page.keyboard.press('Enter');
      const done = page.locator('.notification-toast', { hasText: 'See the Problems panel' }).last();
      await done.waitFor({ state: 'visible', timeout: 60000 });
      result.scan_notification = clean(await done.innerText());
      await page.keyboard.press('Control+Shift+M');
      const other = page.locator('.markers-panel .monaco-list-row', { hasText: CONFIG.otherFile }).first();
      await other.waitFor({ state: 'visible', timeout: 30000 });
      result.scan_problems = await problemRows(page);
      await shot(page, 'after_scan');
      await page.keyboard.press('Control+Shift+M');
    } else {
      await page.keyboard.press('Escape');
    }
    mark('scan');

    // 11. Restart Server, then Show Logs: the log tells how the server was started, twice
    await runCommand(page, 'msport: Restart Server');
    await runCommand(page, 'msport: Show Logs');
    // The Output panel shows the msport channel (which line is in view depends on the scrolling;
    // the test reads the log file for the restart itself).
    await page.locator('.panel .view-lines', { hasText: '[info]' }).first().waitFor({ state: 'visible', timeout: 20000 });
    result.output_channel = await page.$eval('.panel select.monaco-select-box', (el) => el.options[el.selectedIndex].text);
    // Back to a check mark once the new server runs (the spinner shows while it starts).
    await page.waitForFunction((sel) => !document.querySelector(`${sel} .codicon-sync`), STATUS, { timeout: 30000 });
    await page.locator(`${STATUS} .codicon-check, ${STATUS} .codicon-warning`).first().waitFor({ timeout: 30000 });
    await shot(page, 'logs');
    mark('restart');

    // 12. Show Migration Report: a webview with the report, or a message saying why not
    await runCommand(page, 'msport: Show Migration Report');
    const reportTab = page.locator('.tabs-container .tab', { hasText: 'Migration Report' });
    const reportError = page.locator('.notification-toast', { hasText: /could not write|no report command/ });
    await waitFor(async () => (await reportTab.count()) > 0 || (await reportError.count()) > 0, 120000, 'the report or an error');
    result.report_tab = (await reportTab.count()) > 0;
    if (result.report_tab) {
      const frame = page.frameLocator('iframe.webview').frameLocator('iframe');
      await frame.locator('body').waitFor({ state: 'visible', timeout: 30000 });
      result.report_text = clean(await frame.locator('body').innerText()).slice(0, 2000);
    } else {
      result.report_error = clean(await reportError.first().innerText());
    }
    mark('report');
    await shot(page, 'report');

    // 13. Show Effective Settings for the file: a TOML tab with every setting and where its value was set
    await page.locator('.tabs-container .tab', { hasText: CONFIG.file }).first().click();
    await runCommand(page, 'msport: Show Effective Settings');
    const settingsText = page.locator('.editor-group-container.active .monaco-editor .view-lines').first();
    await waitFor(async () => (await settingsText.count()) > 0 && (await settingsText.innerText()).includes('[tool.msport]'), 30000, 'the effective settings');
    result.settings_lines = (await settingsText.innerText()).split('\n').map(clean);
    const settingsTab = page.locator('.tabs-container .tab.active');
    result.settings_tab = clean(await settingsTab.innerText());
    result.settings_tab_dirty = await settingsTab.evaluate((el) => el.classList.contains('dirty'));
    // How VS Code marks a read-only editor: the "readonly" attribute of its input area.
    result.settings_readonly = await page.locator('.editor-group-container.active .monaco-editor textarea').first()
      .evaluate((el) => el.readOnly || el.getAttribute('aria-readonly') === 'true');
    await shot(page, 'settings');
    // Typing changes nothing, and closing the tab asks nothing.
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await page.keyboard.type('x');
    await page.waitForTimeout(300);
    result.settings_after_typing = (await settingsText.innerText()).split('\n').map(clean);
    await page.keyboard.press('Control+W');
    await page.waitForTimeout(800);
    result.settings_close_dialog = await page.locator('.monaco-dialog-box').count() > 0;
    mark('settings');

    // 14. A fresh window on the same folder, its editor restored: the extension host, the
    // server and the first analysis all start with it. Timed from the file's text showing to
    // msport's first squiggle.
    await page.locator('.tabs-container .tab', { hasText: CONFIG.file }).first().click();
    await page.reload();
    result.timing_reload = await marks(page);
    mark('reload');
    await shot(page, 'reload');

    result.ok = true;
  } catch (e) {
    result.error = String((e && e.stack) || e).slice(0, 3000);
    try {
      await shot(page, 'failure');
      // What the status bar held, to tell a missing item from a changed DOM.
      result.statusbar_items = await page.$$eval('.statusbar-item', (items) =>
        items.map((i) => `${i.id} | ${i.getAttribute('aria-label')} | ${i.innerText}`));
    } catch (_) { /* the page may be gone */ }
  } finally {
    result.total_ms = Date.now() - t0;
    fs.writeFileSync(path.join(CONFIG.out, 'vscode.json'), JSON.stringify(result, null, 2));
    clearTimeout(watchdog);
    await ctx.close();
    process.exit(result.ok ? 0 : 1);
  }
})();
