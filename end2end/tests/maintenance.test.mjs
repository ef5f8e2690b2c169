// Maintenance windows, as the DBA who silences a rebooting instance uses them: the triage page
// lists the demo's planned window; a window added from the page starts now or later (a back-dated
// one is refused, saying that a past window goes in the fleet file); added from now over a job
// whose runs are missed, it holds that problem (marked, no alert until it ends), is listed open
// with who added it and why, and /api/triage says the same; ended with a reason (the demo's clock
// stands still, so it ends as it began: cancelled), it holds nothing, and the maintenance page
// lists it with who ended it and why, beside every other window and what each changed.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/maintenance.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
  BASE_URL, CHROMIUM, CHROMIUM_ARGS, DEFAULT_BASE_URL, DEMO_NOW, RESULTS_DIR, SUNDIAL_BIN,
} from '../config.mjs';
import { startSundial } from './server.mjs';

let base = BASE_URL || DEFAULT_BASE_URL;
let server = null;
let browser = null;
const problems = [];

before(async () => {
  if (!BASE_URL && SUNDIAL_BIN) {
    server = await startSundial(SUNDIAL_BIN);
    base = server.url;
  }
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  assert.deepEqual(problems, [], 'no page error or console error');
});

async function open(url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console on ${page.url()}: ${m.text()}`); });
  const res = await page.goto(`${base}${url}`);
  assert.equal(res.status(), 200, url);
  await page.locator('body[data-hydrated="true"]').waitFor();
  return { page, context };
}

/** "YYYY-MM-DD HH:MM" in UTC, as the form reads a start in the UTC zone. */
function utcWall(ms) {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

test('a window from now holds a missed problem, a back-dated one is refused, and every window is listed', async (t) => {
  const { page, context } = await open('/triage?show=all');
  // The demo's own planned window is listed.
  const windows = page.locator('[data-testid="window"]');
  const names = await windows.locator('.window-name').allTextContents();
  assert.ok(names.includes('Sunday index maintenance'), `the demo's window is listed: ${names}`);
  // This morning's ran its course (past, nobody ended it); next Sunday's is planned.
  const sunday = await windows.evaluateAll((els) => els
    .filter((el) => el.querySelector('.window-name')?.textContent === 'Sunday index maintenance')
    .map((el) => [el.dataset.state, Boolean(el.querySelector('[data-testid="window-ended"]'))]));
  assert.deepEqual(sunday, [['planned', false], ['past', false]]);

  // A missed problem of a job.
  const now = Date.parse(DEMO_NOW);
  const rows = await page.locator('[data-testid="problems"] [data-testid="problem"][data-kind="missed"]').evaluateAll((els) => els.map((el) => ({
    key: el.dataset.key,
    where: el.querySelector('.problem-where')?.textContent.trim() ?? '',
  })));
  const row = rows.find((r) => r.where.includes(' / '));
  if (!row) {
    t.skip('the demo plants no missed run');
    await context.close();
    return;
  }
  const [instance, job] = [row.where.slice(0, row.where.indexOf(' / ')), row.where.slice(row.where.indexOf(' / ') + 3)];

  const fill = async (start) => {
    // Closed at first; a refused form comes back open.
    if (await page.locator('details.window-add[open]').count() === 0) await page.locator('details.window-add > summary').click();
    const form = page.locator('[data-testid="window-add-form"]');
    await form.locator('#mw-by').fill('dana');
    await form.locator('#mw-name').fill('Failover rehearsal');
    await form.locator('#mw-reason').fill('planned: <the> cluster moved to node 2');
    await form.locator('#mw-instance').selectOption(instance);
    await form.locator('#mw-jobs').fill(job);
    await form.locator('#mw-start').fill(start);
    await form.locator('#mw-zone').fill('UTC');
    await form.locator('#mw-duration').selectOption('1d');
    await Promise.all([page.waitForURL(/\/triage/), form.locator('button[type="submit"]').click()]);
    await page.locator('body[data-hydrated="true"]').waitFor();
  };

  // Back-dated (yesterday): refused, saying where a past window goes; nothing added.
  await fill(utcWall(now - 24 * 3600_000));
  assert.match(page.url(), /maint_error=past&/);
  assert.match(await page.locator('[data-testid="maint-error"]').textContent(), /Nothing was changed\. A window added here starts now or later.*fleet file/);
  assert.equal(await page.locator('[data-testid="window"]', { hasText: 'Failover rehearsal' }).count(), 0, 'nothing added');
  // The form is shown again, open, with what was typed; the start is marked and the reason is under it.
  const again = page.locator('[data-testid="window-add-form"]');
  assert.ok(await again.isVisible(), 'the form is open again');
  assert.equal(await again.locator('#mw-name').inputValue(), 'Failover rehearsal');
  assert.equal(await again.locator('#mw-reason').inputValue(), 'planned: <the> cluster moved to node 2');
  assert.equal(await again.locator('#mw-instance').inputValue(), instance);
  assert.equal(await again.locator('#mw-jobs').inputValue(), job);
  assert.equal(await again.locator('#mw-start').inputValue(), utcWall(now - 24 * 3600_000));
  assert.equal(await again.locator('#mw-duration').inputValue(), '1d');
  assert.equal(await again.locator('#mw-start').getAttribute('aria-invalid'), 'true', 'the start is marked');
  assert.match(await again.locator('#mw-error').textContent(), /starts now or later/, 'and why, in the form');
  assert.equal(await again.locator('#mw-start').getAttribute('aria-describedby'), 'mw-error');
  await again.scrollIntoViewIfNeeded();
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: path.join(RESULTS_DIR, 'maintenance-refused-1440.png') });
  await page.setViewportSize({ width: 1280, height: 900 });

  // From now (the start left empty), for a day: the problem is held, the window listed open.
  await fill('');
  assert.match(page.url(), /\/triage$/);
  const held = page.locator(`[data-testid="problem"][data-key="${row.key}"] [data-testid="maint-note"]`);
  assert.match(await held.textContent(), /In maintenance \(Failover rehearsal\) until/);
  const added = page.locator('[data-testid="window"][data-state="open"]', { hasText: 'Failover rehearsal' });
  await added.waitFor();
  const text = await added.textContent();
  assert.match(text, /Added by\s*dana/);
  assert.match(text, /planned: <the> cluster moved to node 2/, 'the reason reads as written');
  assert.match(text, new RegExp(`${instance}; jobs ${job.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  await added.scrollIntoViewIfNeeded();
  await page.locator('[data-testid="maintenance"]').screenshot({ path: path.join(RESULTS_DIR, 'maintenance-triage.png') });

  // The API says the same.
  const api = await (await page.request.get(`${base}/api/triage`)).json();
  const p = api.problems.find((x) => x.kind === 'missed' && x.instance === instance && x.job === job);
  assert.equal(p?.maintenance?.window, 'Failover rehearsal', 'the API marks it held');
  const w = api.maintenance.find((x) => x.name === 'Failover rehearsal');
  assert.equal(w.state, 'open');
  assert.equal(w.added_by, 'dana');

  // End it, saying why: it held nothing for a moment of the demo's still clock (cancelled), so the
  // problem is open again and triage no longer lists it.
  await added.locator('details.window-end > summary').click();
  await added.locator('input[name="by"]').fill('erin');
  await added.locator('input[name="why"]').fill('rehearsal over early');
  await Promise.all([page.waitForURL(/\/triage$/), added.locator('button[type="submit"]').click()]);
  await page.locator('body[data-hydrated="true"]').waitFor();
  assert.equal(await page.locator('[data-testid="maint-error"]').count(), 0, 'the page\'s own end form ended it');
  assert.equal(await page.locator(`[data-testid="problem"][data-key="${row.key}"] [data-testid="maint-note"]`).count(), 0, 'held no more');

  // Every window, with who, when, why and what it changed: the maintenance page.
  await Promise.all([page.waitForURL(/\/maintenance$/), page.locator('[data-testid="all-windows"]').click()]);
  await page.locator('body[data-hydrated="true"]').waitFor();
  const cancelled = page.locator('[data-testid="window"][data-state="cancelled"]', { hasText: 'Failover rehearsal' });
  await cancelled.waitFor();
  assert.match(await cancelled.locator('[data-testid="window-ended"]').textContent(), /Ended by\s*erin.*rehearsal over early/s);
  const runs = await page.locator('[data-testid="window-runs"]').count();
  assert.ok(runs >= 2, `each window says what it changed (${runs})`);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'maintenance-page.png'), fullPage: true });
  await context.close();
});

test('two windows added at the same instant (the demo\'s clock stands still) are both kept', async () => {
  const { page, context } = await open('/triage');
  const tomorrow = utcWall(Date.parse(DEMO_NOW) + 24 * 3600_000);
  for (const name of ['e2e first', 'e2e second']) {
    if (await page.locator('details.window-add[open]').count() === 0) await page.locator('details.window-add > summary').click();
    const form = page.locator('[data-testid="window-add-form"]');
    await form.locator('#mw-by').fill('dana');
    await form.locator('#mw-name').fill(name);
    await form.locator('#mw-reason').fill('e2e: same instant');
    await form.locator('#mw-start').fill(tomorrow);
    await Promise.all([page.waitForURL(/\/triage/), form.locator('button[type="submit"]').click()]);
    await page.locator('body[data-hydrated="true"]').waitFor();
    assert.equal(await page.locator('[data-testid="maint-error"]').count(), 0, `${name}: no error (${page.url()})`);
  }
  const planned = await page.locator('[data-testid="window"][data-state="planned"] .window-name').allTextContents();
  assert.ok(planned.includes('e2e first') && planned.includes('e2e second'), `both kept: ${planned}`);
  await context.close();
});

test('a refused form on a phone: the form again, with what was typed and why, no sideways scroll', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, colorScheme: 'dark' });
  const page = await context.newPage();
  await page.goto(`${base}/triage?maint_error=long-name&mw_name=Failover&mw_reason=patching&mw_duration=4h`);
  await page.locator('body[data-hydrated="true"]').waitFor();
  const form = page.locator('[data-testid="window-add-form"]');
  assert.ok(await form.isVisible(), 'open');
  assert.equal(await form.locator('#mw-name').getAttribute('aria-invalid'), 'true');
  assert.match(await form.locator('#mw-error').textContent(), /The name is longer than 80 characters/);
  assert.equal(await form.locator('#mw-reason').inputValue(), 'patching');
  assert.equal(await form.locator('#mw-duration').inputValue(), '4h');
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `no sideways scroll (${wide})`);
  await form.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(RESULTS_DIR, 'maintenance-refused-390-dark.png') });
  await context.close();
});
