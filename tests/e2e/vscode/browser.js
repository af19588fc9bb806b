// What every Playwright script here shares: Debian's Chromium started headless with the flags
// that keep it off the network, and the page marks that time msport's first squiggles.
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

/** A persistent Chromium context in a fresh profile; close() also removes the profile. */
async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'msport-e2e-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.E2E_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const close = ctx.close.bind(ctx);
  ctx.close = async () => {
    await close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return ctx;
}

/**
 * In every page of *ctx*, from its first script on: when the file's text first showed ("text"),
 * when msport's first squiggle showed ("squiggle") and when the status bar's problem counter first
 * counted one ("diagnostics": the findings may all be below the visible lines, where nothing is
 * drawn), in ms since the page started loading (performance.now()), with the page's time origin
 * (epoch ms, to line them up with the extension's log). Read them with marks(page).
 */
async function installMarks(ctx) {
  await ctx.addInitScript(() => {
    const marks = (window.__msportMarks = { origin: performance.timeOrigin });
    const check = () => {
      const now = performance.now();
      if (!marks.text && document.querySelector('.monaco-editor .view-lines .view-line span span')) marks.text = now;
      if (!marks.squiggle && document.querySelector('.monaco-editor .squiggly-warning, .monaco-editor .squiggly-error')) marks.squiggle = now;
      const counter = document.querySelector('[id="status.problems"]');
      if (!marks.diagnostics && counter && /(Errors|Warnings): [1-9]/.test(counter.getAttribute('aria-label') || '')) marks.diagnostics = now;
      if (marks.text && marks.squiggle && marks.diagnostics) observer.disconnect();
    };
    const observer = new MutationObserver(check);
    observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
  });
}

/** The marks of *page* once the file's text and its first diagnostics have shown. */
async function marks(page, timeout = 60000) {
  await page.waitForFunction(() => window.__msportMarks && window.__msportMarks.text && window.__msportMarks.diagnostics, null, { timeout });
  return page.evaluate(() => ({ ...window.__msportMarks }));
}

module.exports = { launch, installMarks, marks };
