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
  // Each row's link says its job's whole name (its text may be cut to fit: see below).
  const names = await rows.evaluateAll((links) => links.map((a) => a.dataset.name));
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
    // Its own colours, and the overlap's mark (a dashed line): drawn before it (under it) in its row.
    const look = (e) => {
      const bands = [...g.querySelectorAll('.itl-ovh')]
        .filter((b) => b.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING);
      return {
        stroke: getComputedStyle(e).stroke,
        fill: getComputedStyle(e).fill,
        band: bands.length ? getComputedStyle(bands[0]).stroke : null,
      };
    };
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
  for (const b of pair) {
    assert.ok(b.band, 'an overlapping bar has its mark');
    assert.notEqual(b.band, b.fill, 'the mark is in a colour of its own');
    assert.equal(b.stroke, b.fill, 'the bar keeps its own colour whole, edge too');
  }
  // A run of its own (a problem) that overlaps says with which jobs.
  const titles = await page.locator('rect[data-overlap="true"]').evaluateAll((els) => els.map((e) => e.parentElement.querySelector('title').textContent));
  for (const t of titles) assert.match(t, /overlap/i);
  await page.close();
});

test('Enter on a run shows its details; their link opens its job at that moment; Escape closes them', async () => {
  const page = await newPage();
  await page.goto(`${base}/timeline?instance=${INSTANCE}`);
  await page.locator('#itl-root[data-ready]').waitFor();
  const bar = page.locator('[data-testid="run-bar"].failed').first();
  const link = bar.locator('xpath=..');
  const href = await link.getAttribute('href');
  assert.match(href, /^\/jobs\/[^?]+\?at=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ&instance=SQLPROD01$/);
  const job = await bar.evaluate((b) => b.closest('[data-job]').dataset.name);
  const detail = page.locator('[data-testid="itl-detail"]');
  assert.equal(await detail.isVisible(), false, 'no details before');
  await link.focus();
  await page.keyboard.press('Enter');
  await detail.waitFor();
  assert.equal(await page.locator('#itl-detail-job').textContent(), job);
  const text = await page.locator('[data-testid="itl-detail-text"]').textContent();
  assert.match(text, / – .+UTC[−+]?\d* · /, `from its start to its end, in a zone: ${text}`);
  assert.match(text, / · Failed · took \d/, `its outcome and how long it took: ${text}`);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'itl-detail-link', 'the keyboard is on its link');
  assert.equal(await page.locator('[data-testid="itl-detail-link"]').getAttribute('href'), href);
  await page.keyboard.press('Escape');
  await detail.waitFor({ state: 'hidden' });
  assert.equal(await link.evaluate((a) => a === document.activeElement), true, 'the keyboard back on the run');
  await page.keyboard.press('Enter');
  await detail.waitFor();
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.pathname.startsWith('/jobs/') && u.searchParams.has('at'));
  const went = new URL(page.url());
  const meant = new URL(href, base);
  assert.equal(went.pathname, meant.pathname, 'its job');
  assert.equal(went.searchParams.get('at'), meant.searchParams.get('at'), 'at that moment');
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

/** The tick labels shown (laid out, inside the axis): their boxes and texts. */
async function tickBoxes(page) {
  return page.locator('.itl-axis').first().evaluate((axis) => {
    const a = axis.getBoundingClientRect();
    return [...axis.querySelectorAll('.itl-tick')]
      .map((t) => ({ r: t.getBoundingClientRect(), text: t.textContent }))
      .filter(({ r }) => r.width > 0 && r.right > a.left && r.left < a.right)
      .map(({ r, text }) => ({ left: r.left, right: r.right, text }));
  });
}

function assertApart(boxes, what) {
  const sorted = [...boxes].sort((a, b) => a.left - b.left);
  for (let i = 1; i < sorted.length; i++) {
    assert.ok(sorted[i - 1].right <= sorted[i].left + 0.5,
      `${what}: "${sorted[i - 1].text}" (${sorted[i - 1].left.toFixed(1)}–${sorted[i - 1].right.toFixed(1)}) runs into "${sorted[i].text}" (${sorted[i].left.toFixed(1)})`);
  }
}

test('tick labels never overlap, on a phone or a desk, at every zoom', async () => {
  const page = await newPage();
  for (const width of [320, 390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    for (const span of [HOUR, 6 * HOUR, 30 * HOUR, 7 * DAY, 30 * DAY]) {
      const from = new Date(Math.max(NOW - span, NOW - 30 * DAY)).toISOString().replace('.000', '');
      const to = new Date(Math.max(NOW - span, NOW - 30 * DAY) + span).toISOString().replace('.000', '');
      await page.goto(`${base}/timeline?instance=${INSTANCE}&from=${from}&to=${to}`);
      await page.locator('#itl-root[data-ready]').waitFor();
      const boxes = await tickBoxes(page);
      // The narrowest phone may have room for one date only.
      assert.ok(boxes.length >= (width > 320 ? 2 : 1), `${width} px, ${span / HOUR} h: some labels (${boxes.map((b) => b.text)})`);
      assertApart(boxes, `${width} px, ${span / HOUR} h`);
    }
    // Zooming out by keyboard: each step as drawn at once (the ticks of the zoom before,
    // closer), then as drawn for the new view.
    await page.goto(`${base}/timeline?instance=${INSTANCE}`);
    await page.locator('#itl-root[data-ready]').waitFor();
    await page.locator('#itl-root').focus();
    for (const key of ['-', '-', '+', '+', '+']) {
      await page.keyboard.press(key);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      assertApart(await tickBoxes(page), `${width} px, zooming (${key})`);
      const v = await settledOn(page, () => true);
      assertApart(await tickBoxes(page), `${width} px, settled on ${(v.to - v.from) / HOUR} h`);
    }
  }
  await page.close();
});

test('every job\'s label is whole on screen and no two jobs show the same one', async () => {
  const page = await newPage();
  for (const width of [320, 390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${base}/timeline?instance=${INSTANCE}`);
    const labels = await page.locator('[data-testid="itl-job"]').evaluateAll((links) => links.map((a) => ({
      name: a.dataset.name,
      // The cut on screen (the whole name beside it is for screen readers only).
      shown: [...a.querySelectorAll('span[aria-hidden]')].filter((s) => s.getClientRects().length > 0)
        .map((s) => s.textContent).join('').trim(),
      cut: a.scrollWidth > a.clientWidth + 1,
    })));
    assert.ok(labels.length > 30);
    for (const l of labels) {
      assert.ok(!l.cut, `${width} px: "${l.shown}" is cut again by the column`);
      const parts = l.shown.split('…');
      assert.ok(l.name.startsWith(parts[0]) && l.name.endsWith(parts.at(-1)), `${width} px: "${l.shown}" is a cut of "${l.name}"`);
    }
    const seen = new Map();
    for (const l of labels) {
      assert.ok(!seen.has(l.shown) || seen.get(l.shown) === l.name, `${width} px: "${l.shown}" shows both "${seen.get(l.shown)}" and "${l.name}"`);
      seen.set(l.shown, l.name);
    }
    if (width === 390) {
      assert.ok(labels.some((l) => l.shown !== l.name), 'long names are cut on a phone');
      assert.ok(labels.filter((l) => l.name.startsWith('DatabaseBackup')).every((l) => l.shown.startsWith('Data') || l.shown.startsWith('…')));
    }
  }
  await page.close();
});

test('on a phone, a tap on a run shows its details: a failed one, then a routine one', async () => {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
  try {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
    const page = await phone.newPage();
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    await page.goto(`${base}/timeline?instance=${INSTANCE}`);
    await page.locator('#itl-root[data-ready]').waitFor();
    const detail = page.locator('[data-testid="itl-detail"]');
    const text = page.locator('[data-testid="itl-detail-text"]');
    // A failed run inside the view: a tap on its middle.
    const bar = page.locator('[data-testid="run-bar"].failed').last();
    await bar.scrollIntoViewIfNeeded();
    const box = await bar.boundingBox();
    const job = await bar.evaluate((b) => b.closest('[data-job]').dataset.name);
    await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
    await detail.waitFor();
    assert.equal(await page.locator('#itl-detail-job').textContent(), job);
    assert.match(await text.textContent(), / · Failed · took /);
    assert.ok(page.url().includes('/timeline'), 'the tap did not leave the page');
    const panel = await detail.boundingBox();
    assert.ok(panel.x >= 0 && panel.x + panel.width <= 390 && panel.y + panel.height <= 844, 'the details are on screen');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'instance-timeline-phone-details.png') });
    await page.locator('.itl-detail-close').tap();
    await detail.waitFor({ state: 'hidden' });
    // A succeeded scheduled run (one of a row's routine runs, drawn together): its details
    // come from the server, for the run under the finger.
    const routine = page.locator('[data-testid="itl-plot"] path.itl-bl').nth(3);
    await routine.evaluate((p) => p.closest('g').scrollIntoView({ block: 'center' }));
    const spot = await routine.evaluate((p) => {
      const svg = p.ownerSVGElement;
      const vb = svg.viewBox.baseVal;
      const r = svg.getBoundingClientRect();
      let x = 0;
      for (const m of p.getAttribute('d').matchAll(/([Mm])(-?\d+) -?\d+h(\d+)/g)) {
        x = m[1] === 'M' ? Number(m[2]) : x + Number(m[2]);
        const mid = x + Number(m[3]) / 2;
        if (mid > vb.x + vb.width * 0.1 && mid < vb.x + vb.width * 0.9) {
          return { x: r.left + (mid - vb.x) / vb.width * r.width, y: p.getBoundingClientRect().top + 1 };
        }
      }
      return null;
    });
    assert.ok(spot, 'a routine run in view');
    await page.touchscreen.tap(spot.x, spot.y);
    await detail.waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="itl-detail-text"]').textContent !== '…');
    assert.match(await text.textContent(), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d – .+ · Succeeded · took /);
    assert.match(await page.locator('[data-testid="itl-detail-link"]').getAttribute('href'), /^\/jobs\/[^?]+\?at=/);
    await phone.close();
  } finally {
    await browser.close();
  }
});

test('a failed run inside an overlap stays failed over its mark, light and dark', async () => {
  const page = await newPage();
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${base}/timeline?instance=${INSTANCE}`);
    const looks = await page.locator('rect.itl-b.failed[data-overlap="true"]').evaluateAll((bars) => bars.map((b) => {
      const band = b.previousElementSibling;
      const plain = document.querySelector('rect.itl-b.failed:not([data-overlap])') || b;
      return {
        band: band?.classList.contains('itl-ovh') ? getComputedStyle(band).stroke : null,
        fill: getComputedStyle(b).fill,
        stroke: getComputedStyle(b).stroke,
        plain: getComputedStyle(plain).fill,
        opacity: getComputedStyle(b).opacity,
      };
    }));
    assert.ok(looks.length > 0, `${scheme}: a failed run that overlaps another job's`);
    for (const l of looks) {
      assert.ok(l.band, `${scheme}: its mark is drawn before it (under it)`);
      assert.notEqual(l.band, l.fill, `${scheme}: the mark is not the failed colour`);
      assert.equal(l.fill, l.plain, `${scheme}: filled as any failed run`);
      assert.equal(l.stroke, l.fill, `${scheme}: edged in its own colour, not the mark's`);
      assert.equal(l.opacity, '1');
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
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
