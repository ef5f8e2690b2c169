// The pages tell the truth at a glance: failures counted, incidents in view on the default
// window, collapsed misses that expand, a log that pages through every line, zoned times,
// no sideways scroll on a phone, a dark theme, one aria-current per navigation group.
// Screenshots of every page, light and dark, desktop and phone, go to test-results/.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/truth.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
  BASE_URL, CHROMIUM, CHROMIUM_ARGS, DEFAULT_BASE_URL, RESULTS_DIR, SUNDIAL_BIN,
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
});

/** A fresh context (own localStorage) and page. */
async function open(url, { width = 1440, height = 900, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console on ${page.url()}: ${m.text()}`); });
  const res = await page.goto(`${base}${url}`);
  assert.equal(res.status(), 200, url);
  await page.locator('body[data-hydrated="true"]').waitFor();
  return { page, context };
}

/** The id of a job with a zombie-explained miss, and of one with failures (from the 30-day list). */
async function demoJobs() {
  const { page, context } = await open('/jobs?days=30');
  const zombie = await page.locator('[data-testid="job-row"]:not([data-missed-zombie="0"])').first().getAttribute('data-job-id');
  const failing = await page.locator('[data-testid="job-row"]:not([data-failed="0"])').first().getAttribute('data-job-id');
  await context.close();
  return { zombie, failing };
}

test('a failing job\'s failures show in the list, its state, and its tiles', async () => {
  const { page, context } = await open('/jobs?days=7');
  const rows = page.locator('[data-testid="job-row"]:not([data-failed="0"])');
  assert.ok(await rows.count() > 0, 'some job failed in the last 7 days');
  const row = rows.first();
  const failed = Number(await row.getAttribute('data-failed'));
  assert.ok(failed > 0);
  assert.equal(Number((await row.locator('[data-testid="failed-count"]').innerText()).match(/\d+/)[0]), failed, 'the failures column says it');
  const state = await row.getAttribute('data-state');
  // Its state is the fleet's judgment (triage's worst problem of it), else what its runs say:
  // a job with failures is never simply OK.
  assert.ok(!['ok', 'norun', 'running'].includes(state), `a job with failures is not ${state}`);
  // The summary counts failures too, and the default sort puts the job needing attention first.
  assert.match(await page.locator('[data-testid="jobs-summary"]').innerText(), /with failures \(\d+ failed runs?\)/);
  const firstState = await page.locator('[data-testid="job-row"]').first().getAttribute('data-state');
  assert.ok(!['ok', 'norun', 'running', 'disabled'].includes(firstState) || Number(await page.locator('[data-testid="job-row"]').first().getAttribute('data-missed')) > 0,
    'what needs attention comes first');
  // Filter to jobs with failures: only those remain.
  await page.locator('[data-testid="job-filter"][data-show="failures"]').click();
  await page.waitForURL((u) => u.searchParams.get('show') === 'failures');
  const shown = page.locator('[data-testid="job-row"]');
  assert.ok(await shown.count() > 0);
  assert.equal(await page.locator('[data-testid="job-row"][data-failed="0"]').count(), 0, 'the filter keeps only failing jobs');
  // The job page's tiles and text alternative count the same failures.
  await shown.first().locator('a.job-link').click();
  await page.waitForURL((u) => u.pathname.startsWith('/jobs/'));
  const tile = page.locator('[data-testid="failed-tile"] [data-testid="failed-count"]');
  await tile.waitFor();
  assert.ok(Number((await tile.innerText()).match(/\d+/)[0]) > 0, 'the Failed tile counts');
  assert.match(await page.locator('[data-testid="timeline-chart"]').getAttribute('aria-label'), /[1-9]\d* failed/);
  assert.doesNotMatch(await page.locator('[data-testid="timeline-summary"]').innerText(), /Nothing failed/);
  await context.close();
});

test('the zombie period is announced on the default jobs page, with its cost and a link to it', async () => {
  const { page, context } = await open('/jobs');
  const banner = page.locator('[data-testid="zombie-banner"]');
  assert.equal(await banner.count(), 1, 'the zombie period of 9..7 days ago is announced on the 7-day view');
  const text = await banner.innerText();
  assert.match(text, /SQL Agent started no job from .+ to .+: [\d,]+ runs due: [\d,]+ missed/);
  const due = Number(await banner.getAttribute('data-due'));
  const missed = Number(await banner.getAttribute('data-missed'));
  const unknown = Number(await banner.getAttribute('data-unknown'));
  assert.ok(due >= missed + unknown && missed > 0, `due ${due}, missed ${missed}, unknown ${unknown}`);
  // The 30-day list agrees: the zombie's misses are inside the list's missed runs.
  const { page: p30, context: c30 } = await open('/jobs?days=30');
  const zombieMissed = await p30.locator('[data-testid="job-row"]').evaluateAll((els) => els.reduce((n, e) => n + Number(e.dataset.missedZombie), 0));
  assert.equal(zombieMissed, missed, 'banner and list count the same zombie misses');
  // And the log counts every missed run of the list, though it collapses them into lines.
  const listMissed = await p30.locator('[data-testid="job-row"]').evaluateAll((els) => els.reduce((n, e) => n + Number(e.dataset.missed), 0));
  await p30.goto(`${base}/log?days=30&problems=1&instance=SQLPROD01`);
  const chip = p30.locator('[data-testid="kind-filter"][data-kind="missed"]');
  assert.equal(Number(await chip.getAttribute('data-events')), listMissed, 'log and list count the same missed runs');
  assert.ok(Number(await chip.getAttribute('data-lines')) < listMissed, 'in fewer lines');
  await c30.close();
  // Its link leads to the log at that moment, where the misses are collapsed lines.
  await banner.locator('[data-testid="incident-link"]').click();
  await page.waitForURL((u) => u.pathname === '/log' && u.searchParams.get('from') && u.searchParams.get('to'));
  const collapsed = page.locator('[data-testid="log-line"][data-kind="missed"]:not([data-count="1"])');
  await collapsed.first().waitFor();
  assert.ok(await collapsed.count() > 0, 'the log collapses the zombie\'s misses');
  await context.close();
});

test('a collapsed run of misses in the job\'s table expands to each of them', async () => {
  const { zombie } = await demoJobs();
  const { page, context } = await open(`/jobs/${encodeURIComponent(zombie)}?days=30`);
  const details = page.locator('[data-testid="timeline-table"] [data-testid="collapsed-misses"]');
  assert.ok(await details.count() > 0, 'consecutive misses are one row');
  const d = details.first();
  const count = Number(await d.getAttribute('data-count'));
  assert.ok(count > 1);
  assert.match(await d.locator('summary').innerText(), new RegExp(`^${count} runs missed from .+ to .+: `));
  assert.equal(await d.locator('ol.members li').first().isVisible(), false, 'collapsed at first');
  await d.locator('summary').click();
  assert.ok(await d.locator('ol.members li').first().isVisible(), 'expanded on click');
  assert.equal(await d.locator('ol.members li').count(), Math.min(count, 200));
  // Real failures are never pushed out of view: every failed run is a row.
  const failedRuns = await page.locator('[data-testid="run-bar"][data-outcome="failed"]').count();
  // (a run's own badge: its steps' badges, inside its step list, are not runs)
  const runBadges = await page.locator('[data-testid="timeline-table"] .badge[data-outcome="failed"]')
    .evaluateAll((bs) => bs.filter((b) => !b.closest('[data-testid="run-steps"]')).length);
  assert.equal(runBadges, failedRuns);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'timeline-collapsed.png'), fullPage: true });
  await context.close();
});

test('the log pages through every line of a 30-day window, with no cap', async () => {
  const { page, context } = await open('/log?days=30&limit=10000');
  const summary = page.locator('[data-testid="log-summary"]');
  const total = Number(await summary.getAttribute('data-lines'));
  assert.ok(total > 10000, `a 30-day demo log is long (${total} lines)`);
  let seen = 0;
  let pages = 0;
  for (;;) {
    const range = page.locator('[data-testid="pager-range"]').first();
    const from = Number(await range.getAttribute('data-from'));
    assert.equal(from, seen + 1, 'each page starts where the last ended');
    assert.equal(Number(await range.getAttribute('data-total')), total);
    seen += await page.locator('[data-testid="log-line"]').count();
    pages += 1;
    const older = page.locator('[data-testid="pager-older"]').first();
    if (await older.count() === 0) break;
    const before = page.url();
    await older.click();
    await page.waitForURL((u) => u.href !== before);
    await page.locator(`[data-testid="pager-range"][data-from="${seen + 1}"]`).first().waitFor();
  }
  assert.equal(seen, total, `every line was on some page (${pages} pages)`);
  // Counts per kind are over the whole filter; a kind filter pages through exactly that many.
  const failed = page.locator('[data-testid="kind-filter"][data-kind="failed"]');
  const failedLines = Number(await failed.getAttribute('data-lines'));
  await failed.click();
  await page.waitForURL((u) => u.searchParams.get('kind') === 'failed');
  await page.locator(`[data-testid="pager-range"][data-total="${failedLines}"]`).first().waitFor();
  assert.equal(await page.locator('[data-testid="log-line"]').count(), Math.min(failedLines, 10000));
  assert.equal(await page.locator('[data-testid="log-line"]:not([data-kind="failed"])').count(), 0);
  await context.close();
});

const PAGES = async () => {
  const { zombie } = await demoJobs();
  return [
    ['landing', '/'],
    ['jobs', '/jobs'],
    ['jobs-30d', '/jobs?days=30'],
    ['timeline', `/jobs/${encodeURIComponent(zombie)}?days=7`],
    ['timeline-30d', `/jobs/${encodeURIComponent(zombie)}?days=30`],
    ['log', '/log?days=7&instance=SQLPROD01'],
    ['log-fleet', '/log?days=7'],
    ['fleet', '/fleet'],
  ];
};

test('every <time> carries a datetime with an offset, and the zone switch is remembered', async () => {
  const zoned = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)$/;
  for (const [name, url] of await PAGES()) {
    const { page, context } = await open(url);
    const stamps = await page.locator('time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')));
    assert.ok(stamps.length > 0, `${name} shows times`);
    const bad = stamps.filter((s) => !zoned.test(s || ''));
    assert.deepEqual(bad.slice(0, 5), [], `${name}: every <time> has a zoned datetime`);
    await context.close();
  }
  const { page, context } = await open('/jobs');
  const now = page.locator('[data-testid="instance"] time');
  const instanceText = await now.innerText();
  assert.match(instanceText, /UTC[−+]\d/, 'the instance zone\'s offset is shown');
  await page.locator('[data-testid="zone-switch"] button[data-zone="utc"]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="instance"] time').innerText.endsWith('UTC'));
  assert.notEqual(await now.innerText(), instanceText, 'times follow the switch');
  assert.equal(await page.locator('[data-testid="zone-switch"] button[data-zone="utc"]').getAttribute('aria-pressed'), 'true');
  await page.reload();
  await page.locator('body[data-hydrated="true"]').waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid="instance"] time').innerText.endsWith('UTC'));
  await context.close();
});

test('no page scrolls sideways on a phone (390 × 844), and the header keeps instance, zone and now', async () => {
  for (const [name, url] of await PAGES()) {
    for (const colorScheme of ['light', 'dark']) {
      const { page, context } = await open(url, { width: 390, height: 844, colorScheme });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `${name} (${colorScheme}) is ${width} px wide at 390`);
      if (!['fleet', 'landing', 'log-fleet'].includes(name)) {
        // The header's Menu button names the instance and its now, with its offset (the zone's
        // name and the switch are behind it).
        for (const sel of ['[data-testid="menu"] .menu-instance-name', '[data-testid="menu"] time', '[data-testid="menu"] time .tz-off']) {
          assert.ok(await page.locator(sel).first().isVisible(), `${name}: ${sel} visible on a phone`);
        }
      }
      await page.screenshot({ path: path.join(RESULTS_DIR, `phone-${name}-${colorScheme}.png`), fullPage: false });
      await context.close();
    }
  }
});

test('the dark theme follows the system and the toggle, and is remembered', async () => {
  const bg = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const { page: light, context: lc } = await open('/');
  const { page: dark, context: dc } = await open('/', { colorScheme: 'dark' });
  const lightBg = await bg(light);
  assert.notEqual(await bg(dark), lightBg, 'prefers-color-scheme: dark changes the colours');
  // The toggle overrides the system, and a reload keeps it.
  await light.locator('[data-testid="theme-toggle"]').click();
  await light.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  assert.notEqual(await bg(light), lightBg);
  await light.reload();
  await light.locator('body[data-hydrated="true"]').waitFor();
  assert.equal(await light.evaluate(() => document.documentElement.dataset.theme), 'dark', 'remembered');
  await lc.close();
  await dc.close();
  for (const [name, url] of await PAGES()) {
    for (const colorScheme of ['light', 'dark']) {
      const { page, context } = await open(url, { colorScheme });
      await page.screenshot({ path: path.join(RESULTS_DIR, `desktop-${name}-${colorScheme}.png`), fullPage: false });
      await context.close();
    }
  }
});

test('exactly one aria-current per navigation group; a skip link leads to the content', async () => {
  for (const [name, url] of await PAGES()) {
    const { page, context } = await open(url);
    const groups = await page.locator('nav.primary-nav, nav.window-links, nav.filters, nav.kind-filters').evaluateAll(
      (els) => els.map((e) => [e.className, e.querySelectorAll('[aria-current]').length]),
    );
    assert.ok(groups.length > 0);
    for (const [cls, n] of groups) assert.equal(n, 1, `${name}: ${cls} has ${n} aria-current`);
    const outside = await page.locator('[aria-current]').evaluateAll(
      (els) => els.filter((e) => !e.closest('nav.primary-nav, nav.window-links, nav.filters, nav.kind-filters')).length,
    );
    assert.equal(outside, 0, `${name}: no aria-current outside the navigation groups`);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip-link', 'the first Tab reaches the skip link');
    await context.close();
  }
});

test('a 7-day job page stays under 150 KB', async () => {
  const { page, context } = await open('/jobs?days=7');
  const ids = await page.locator('[data-testid="job-row"]').evaluateAll((els) => els.map((e) => e.dataset.jobId));
  await context.close();
  let biggest = [0, ''];
  for (const id of ids) {
    const res = await fetch(`${base}/jobs/${encodeURIComponent(id)}?days=7`);
    assert.equal(res.status, 200);
    const size = Buffer.byteLength(await res.text());
    if (size > biggest[0]) biggest = [size, id];
  }
  console.log(`largest 7-day job page: ${biggest[0]} bytes (${biggest[1]}), ${ids.length} jobs`);
  assert.ok(biggest[0] < 150_000, `the largest 7-day job page is ${biggest[0]} bytes`);
});

test('no page errors or console errors (hydration included)', () => {
  assert.deepEqual(problems, []);
});
