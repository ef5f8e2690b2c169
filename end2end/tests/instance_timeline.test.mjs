// The instance timeline in the browser: a row per job of SQLPROD01, the demo's zombie span
// reached by keyboard zoom and pan (the URL following), overlapping runs of different jobs
// shown as overlapping, a run opening its job at that moment, and the page without JavaScript.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/instance_timeline.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
  BASE_URL, CHROMIUM, CHROMIUM_ARGS, DEFAULT_BASE_URL, DEMO_NOW, RESULTS_DIR, SUNDIAL_BIN,
} from '../config.mjs';
import { startSundial } from './server.mjs';

const INSTANCE = 'SQLPROD01';
const HOUR = 3600e3;
const DAY = 24 * HOUR;
const NOW = Date.parse(DEMO_NOW);

let base = BASE_URL || DEFAULT_BASE_URL;
let server = null;
let context = null;
let userDataDir = null;
const problems = [];

before(async () => {
  if (!BASE_URL && SUNDIAL_BIN) {
    server = await startSundial(SUNDIAL_BIN);
    base = server.url;
  }
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sundial-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1440, height: 900 },
    timeout: 60_000,
  });
  context.setDefaultTimeout(30_000);
});

after(async () => {
  await context?.close();
  if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  await server?.stop();
});

async function newPage() {
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  return page;
}

/** The view the URL holds, in epoch ms. */
function urlView(page) {
  const u = new URL(page.url());
  return { from: Date.parse(u.searchParams.get('from')), to: Date.parse(u.searchParams.get('to')) };
}

/** The view the chart on the page is drawn for (after the island's fetch, the URL's). */
async function chartView(page) {
  return page.locator('#itl-chart').evaluate((c) => ({ from: Number(c.dataset.view0), to: Number(c.dataset.view1) }));
}

/** Wait until the URL holds a view that `ok` accepts (the island writes it once the reader
 *  pauses) and the chart is drawn for it (the island fetches it then). */
async function settledOn(page, ok) {
  await page.waitForURL((u) => ok({ from: Date.parse(u.searchParams.get('from')), to: Date.parse(u.searchParams.get('to')) }));
  await page.waitForFunction(() => {
    const c = document.getElementById('itl-chart');
    const u = new URL(location.href);
    return c && Date.parse(u.searchParams.get('from')) === Number(c.dataset.view0)
      && Date.parse(u.searchParams.get('to')) === Number(c.dataset.view1);
  });
  const v = urlView(page);
  assert.deepEqual(await chartView(page), v, 'the chart is drawn for the URL\'s view');
  assert.ok(ok(v), `view ${new Date(v.from).toISOString()} – ${new Date(v.to).toISOString()}`);
  return v;
}

test('a row per job of SQLPROD01, linked from the jobs list and the navigation', async () => {
  const page = await newPage();
  await page.goto(`${base}/jobs?days=7&instance=${INSTANCE}`);
  const jobNames = (await page.locator('[data-testid="job-row"] a.job-link').allTextContents()).map((s) => s.trim());
  assert.ok(jobNames.length > 5);
  await page.locator('[data-testid="instance-timeline-link"]').click();
  await page.waitForURL((u) => u.pathname === '/timeline' && u.searchParams.get('instance') === INSTANCE);
  assert.equal(await page.locator('[data-testid="nav-timeline"]').getAttribute('aria-current'), 'page');
  assert.equal(await page.locator('nav.primary-nav [aria-current]').count(), 1, 'one current view');
  assert.equal(new URL(await page.locator('[data-testid="nav-timeline"]').getAttribute('href'), base).searchParams.get('instance'), INSTANCE);
  const rows = page.locator('[data-testid="itl-job"]');
  const names = (await rows.allTextContents()).map((s) => s.trim());
  assert.deepEqual([...names].sort(), [...jobNames].sort(), 'every job has its row');
  assert.equal(await page.locator('[data-testid="itl-plot"] g.itl-row').count(), names.length);
  // The default view: the last 24 hours and the next 6 around the instance's now.
  const v = await chartView(page);
  assert.deepEqual(v, { from: NOW - DAY, to: NOW + 6 * HOUR });
  assert.equal(await page.locator('[data-testid="now-line"]').count(), 1, 'the now line');
  assert.ok(await page.locator('.itl-k.upcoming').count() > 0, 'occurrences ahead of now');
  // A row's name opens the job's timeline.
  const first = rows.first();
  const href = await first.getAttribute('href');
  assert.match(href, /^\/jobs\/[^?]+\?days=\d+&instance=SQLPROD01$/);
  await page.locator('body[data-hydrated="true"]').waitFor();
  await page.locator('#itl-root[data-ready]').waitFor();
  await page.screenshot({ path: path.join(RESULTS_DIR, 'instance-timeline.png') });
  await page.close();
});

test('keyboard zoom and pan reach the zombie span; the URL follows and a reload shows the same', async () => {
  const page = await newPage();
  await page.goto(`${base}/timeline?instance=${INSTANCE}`);
  await page.locator('#itl-root[data-ready]').waitFor();
  const root = page.locator('#itl-root');
  await root.focus();
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'itl-root');
  const before = urlView(page);
  assert.ok(Number.isNaN(before.from), 'no view in the URL yet');

  await page.keyboard.press('+');
  const zoomed = await settledOn(page, (v) => v.to - v.from < 30 * HOUR);
  assert.equal(zoomed.to - zoomed.from, 20 * HOUR, 'one step: 30 h / 1.5');

  // Out three steps (to 67.5 h), then a view and more back: the zombie span [now-9d, now-7d).
  for (const key of ['-', '-', '-']) await page.keyboard.press(key);
  await settledOn(page, (v) => v.to - v.from === 67.5 * HOUR);
  for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowLeft');
  const there = await settledOn(page, (v) => v.from < NOW - 8 * DAY && v.to > NOW - 8 * DAY);
  const band = page.locator('[data-testid="zombie-band"]');
  assert.equal(await band.count(), 1, 'the zombie band');
  assert.equal(Number(await band.getAttribute('data-start')) < there.to, true);
  assert.ok(Math.abs(Number(await band.getAttribute('data-start')) - (NOW - 9 * DAY)) < HOUR, 'it starts 9 days before now');
  assert.match(await band.locator('title').textContent(), /^Zombie: SQL Agent started no job from .+ while \d+ runs were due$/);
  const flag = page.locator('.itl-flag-zombie');
  assert.ok(await flag.isVisible(), 'its label over the axis');
  assert.ok(await page.locator('[data-testid="missed-marker"]').count() > 0, 'missed runs marked in it');
  assert.equal(await root.evaluate((r) => r.contains(document.activeElement)), true, 'the keyboard stays on the chart');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'instance-timeline-zombie.png') });

  // The URL is the state: a reload (server-rendered) shows the same view.
  const url = page.url();
  await page.reload();
  await page.locator('[data-testid="zombie-band"]').waitFor();
  assert.equal(page.url(), url);
  assert.deepEqual(await chartView(page), there);
  await page.close();
});

test('overlapping runs of different jobs are shown as overlapping', async () => {
  const page = await newPage();
  await page.goto(`${base}/timeline?instance=${INSTANCE}`);
  const peak = Number((await page.locator('[data-testid="itl-peak"]').textContent()).replace(/\D+/g, ''));
  assert.ok(peak >= 2, `the concurrency strip says up to ${peak} at once`);
  // Overlapping runs: routine ones as outlined subpaths of a row's path (`M<x> 12h<w>v8h-<w>z`
  // then `m<dx> 0h<w>…`, each starting where the last one did), the others as rects of their
  // own; x and width in seconds.
  const bars = await page.locator('[data-testid="itl-plot"] g[data-job]').evaluateAll((rows) => rows.flatMap((g) => {
    const job = g.dataset.job;
    const look = (e) => ({ outline: getComputedStyle(e).stroke, fill: getComputedStyle(e).fill });
    const out = [];
    for (const e of g.querySelectorAll('rect[data-overlap="true"]')) {
      const x = Number(e.getAttribute('x'));
      out.push({ job, from: x, to: x + Number(e.getAttribute('width')), ...look(e) });
    }
    for (const p of g.querySelectorAll('path.itl-ov')) {
      let x = 0;
      for (const m of p.getAttribute('d').matchAll(/([Mm])(-?\d+) -?\d+h(\d+)/g)) {
        x = m[1] === 'M' ? Number(m[2]) : x + Number(m[2]);
        out.push({ job, from: x, to: x + Number(m[3]), ...look(p) });
      }
    }
    return out;
  }));
  assert.ok(bars.length >= 2, `runs flagged as overlapping: ${bars.length}`);
  const pair = bars.flatMap((a, i) => bars.slice(i + 1).map((b) => [a, b]))
    .find(([a, b]) => a.job !== b.job && a.from < b.to && b.from < a.to);
  assert.ok(pair, 'two bars of different jobs share time');
  for (const b of pair) assert.notEqual(b.outline, b.fill, 'an overlapping bar is outlined in another color');
  // A run of its own (a problem) that overlaps says with which jobs.
  const titles = await page.locator('rect[data-overlap="true"]').evaluateAll((els) => els.map((e) => e.parentElement.querySelector('title').textContent));
  for (const t of titles) assert.match(t, /overlap/i);
  await page.close();
});

test('a run opens its job at that moment', async () => {
  const page = await newPage();
  await page.goto(`${base}/timeline?instance=${INSTANCE}`);
  await page.locator('#itl-root[data-ready]').waitFor();
  const link = page.locator('[data-testid="run-bar"]').first().locator('xpath=..');
  const href = await link.getAttribute('href');
  assert.match(href, /^\/jobs\/[^?]+\?at=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ&instance=SQLPROD01$/);
  await link.focus();
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.pathname.startsWith('/jobs/') && u.searchParams.has('at'));
  await page.close();
});

test('without JavaScript the zoom and pan links work', async () => {
  // The persistent context cannot turn JavaScript off: block the islands' bundle instead
  // (a page of its own, whose failed loads are expected).
  const page = await context.newPage();
  await page.route('**/pkg/*.{js,wasm}', (r) => r.abort());
  await page.goto(`${base}/timeline?instance=${INSTANCE}`);
  const zoomIn = page.locator('[data-testid="itl-in"]');
  await zoomIn.click();
  await page.waitForURL((u) => u.searchParams.has('from'));
  const v = urlView(page);
  assert.equal(v.to - v.from, 15 * HOUR, 'half of 30 hours');
  assert.deepEqual(await chartView(page), v);
  await page.locator('[data-testid="itl-earlier"]').click();
  await page.waitForURL((u) => Date.parse(u.searchParams.get('from')) === v.from - 7.5 * HOUR);
  assert.equal(await page.locator('#itl-root[data-ready]').count(), 0, 'no island ran');
  await page.close();
});

test('light, dark and a phone', async () => {
  const page = await newPage();
  for (const [scheme, width, name] of [['light', 1280, 'light'], ['dark', 1280, 'dark'], ['light', 390, 'phone']]) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${base}/timeline?instance=${INSTANCE}`);
    await page.locator('#itl-root[data-ready]').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${name}: no sideways scrolling (${overflow}px)`);
    await page.screenshot({ path: path.join(RESULTS_DIR, `instance-timeline-${name}.png`) });
  }
  await page.close();
});

test('no page errors or console errors', () => {
  assert.deepEqual(problems, []);
});
