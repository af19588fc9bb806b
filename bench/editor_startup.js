// Times msport's first squiggles in a real VS Code (code-server), driven by Playwright in
// Chromium: the folder's file is opened once, then the window is reloaded BENCH_RELOADS times;
// each reload is a fresh window (extension host, msport's server and its first analysis all
// start again) that restores the file. For each window: when the file's text first showed and
// when the status bar first counted a problem, in ms since the page started loading
// (performance.now()), and the page's time origin (epoch ms) to line them up with the
// extension's log. Written as JSON to BENCH_OUT. Run by bench/editor_startup.py.
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

const base = process.env.E2E_BASE;
const folder = process.env.E2E_FOLDER;
const file = process.env.E2E_FILE;
const reloads = Number(process.env.BENCH_RELOADS || '3');
const out = process.env.BENCH_OUT;

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'msport-bench-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.E2E_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  // The same marks as tests/e2e/vscode/vscode_e2e.js.
  await ctx.addInitScript(() => {
    const marks = (window.__msportMarks = { origin: performance.timeOrigin });
    const check = () => {
      const now = performance.now();
      if (!marks.text && document.querySelector('.monaco-editor .view-lines .view-line span span')) marks.text = now;
      const counter = document.querySelector('[id="status.problems"]');
      if (!marks.diagnostics && counter && /(Errors|Warnings): [1-9]/.test(counter.getAttribute('aria-label') || '')) marks.diagnostics = now;
      if (marks.text && marks.diagnostics) observer.disconnect();
    };
    const observer = new MutationObserver(check);
    observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  const windows = [];
  const settle = async (label) => {
    await page.waitForFunction(() => window.__msportMarks.text && window.__msportMarks.diagnostics, null, { timeout: 120000 });
    windows.push({ label, ...(await page.evaluate(() => ({ ...window.__msportMarks }))) });
  };
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
  fs.rmSync(profile, { recursive: true, force: true });
  process.exit(error ? 1 : 0);
})();
