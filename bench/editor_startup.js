// Times msport's first squiggles in a real VS Code (code-server), driven by Playwright in
// Chromium: the folder's file is opened once, then the window is reloaded BENCH_RELOADS times;
// each reload is a fresh window (extension host, msport's server and its first analysis all
// start again) that restores the file. For each window: when the file's text first showed and
// when the status bar first counted a problem, in ms since the page started loading
// (performance.now()), and the page's time origin (epoch ms) to line them up with the
// extension's log (tests/e2e/vscode/browser.js sets the marks). Written as JSON to BENCH_OUT.
// Run by bench/editor_startup.py.
const fs = require('fs');
const path = require('path');
const { launch, installMarks, marks } = require(path.join(__dirname, '..', 'tests', 'e2e', 'vscode', 'browser'));

const base = process.env.E2E_BASE;
const folder = process.env.E2E_FOLDER;
const file = process.env.E2E_FILE;
const reloads = Number(process.env.BENCH_RELOADS || '3');
const out = process.env.BENCH_OUT;

(async () => {
  const ctx = await launch();
  await installMarks(ctx);
  const page = ctx.pages()[0] || (await ctx.newPage());
  const windows = [];
  const settle = async (label) => windows.push({ label, ...(await marks(page, 120000)) });
  let error;
  try {
    await page.goto(`${base}/?folder=${encodeURIComponent(folder)}`);
    const row = `.explorer-folders-view .monaco-list-row[aria-label="${file}"]`;
    await page.waitForSelector(row, { timeout: 120000 });
    await page.dblclick(row);
    await settle('open');
    for (let i = 1; i <= reloads; i++) {
      // Let the window finish its start-up work before the next one (a reload mid-analysis
      // would time the previous window's leftovers).
      await page.waitForTimeout(1500);
      await page.reload();
      await settle(`reload ${i}`);
    }
  } catch (e) {
    error = String((e && e.stack) || e).slice(0, 2000);
  }
  fs.writeFileSync(out, JSON.stringify({ windows, error }, null, 2));
  await ctx.close();
  process.exit(error ? 1 : 0);
})();
