// A .vsix packaged without its server, in code-server: what the user sees. Records the
// notification and the status-bar item (vscode.json in E2E_OUT), with a screenshot.
const fs = require('fs');
const path = require('path');
const { launch } = require('./browser');

(async () => {
  const out = process.env.E2E_OUT;
  const result = { ok: false };
  const ctx = await launch();
  const page = ctx.pages()[0] || (await ctx.newPage());
  try {
    await page.goto(`${process.env.E2E_BASE}/?folder=${encodeURIComponent(process.env.E2E_FOLDER)}`);
    const row = `.explorer-folders-view .monaco-list-row[aria-label="${process.env.E2E_FILE}"]`;
    await page.waitForSelector(row, { timeout: 60000 });
    await page.dblclick(row);
    const toast = page.locator('.notification-toast', { hasText: 'msport' }).first();
    await toast.waitFor({ state: 'visible', timeout: 60000 });
    result.notification = (await toast.innerText()).replace(/\s+/g, ' ').trim();
    const status = page.locator('[id="msport-dev.msport.msport.status"]');
    await status.waitFor({ state: 'visible', timeout: 20000 });
    result.status_aria = await status.getAttribute('aria-label');
    await page.screenshot({ path: path.join(out, '01_missing_server.png') });
    result.ok = true;
  } catch (e) {
    result.error = String((e && e.stack) || e).slice(0, 2000);
    await page.screenshot({ path: path.join(out, '01_failure.png') }).catch(() => undefined);
  }
  fs.writeFileSync(path.join(out, 'vscode.json'), JSON.stringify(result, null, 2));
  await ctx.close();
  process.exit(result.ok ? 0 : 1);
})();
