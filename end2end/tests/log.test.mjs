// The log across the fleet, as a DBA uses it: the filters are a plain form (instance, job, kind,
// time range) reached with the keyboard and a visible focus; filtering by instance and kind
// shows exactly those lines, as many as the chip counts; the CSV download holds exactly the
// filtered rows (every page); a line's job link opens the job's timeline at that moment on its
// instance; a bad value is named beside its field.
//
// The demo fleet may hold more instances than SQLPROD01 (the first): specific assertions use
// SQLPROD01 only, and the fleet-wide ones hold for any fleet.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/log.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
  BASE_URL, CHROMIUM, CHROMIUM_ARGS, DEFAULT_BASE_URL, RESULTS_DIR, SUNDIAL_BIN,
} from '../config.mjs';
import { startSundial } from './server.mjs';

const INSTANCE = 'SQLPROD01';
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
  assert.deepEqual(problems, [], 'no page error and no console error');
});

/** A fresh context and page at `url`, hydrated; `status` is the answer expected. */
async function open(url, { width = 1280, height = 900, colorScheme = 'light', status = 200 } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme, acceptDownloads: true });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  page.on('console', (m) => {
    // A page answered 400 on purpose logs its status; nothing else may.
    if (m.type() === 'error' && !(status !== 200 && /status of 400/.test(m.text()))) problems.push(`console on ${page.url()}: ${m.text()}`);
  });
  const res = await page.goto(`${base}${url}`);
  assert.equal(res.status(), status, url);
  await page.locator('body[data-hydrated="true"]').waitFor();
  return { page, context };
}

/** The lines shown: what a reader sees of each, in order. */
async function shownRows(page) {
  return page.locator('[data-testid="log-line"]').evaluateAll((rows) => rows.map((r) => ({
    time: r.querySelector('time').getAttribute('datetime'),
    instance: r.dataset.instance,
    job: r.querySelector('[data-testid="log-job-link"]')?.textContent ?? '',
    kind: r.dataset.kind,
    count: Number(r.dataset.count),
    href: r.querySelector('[data-testid="log-job-link"]')?.getAttribute('href') ?? null,
  })));
}

/** RFC 4180 CSV: rows of fields (quoted fields may hold commas, quotes and newlines). */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 1; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field); rows.push(row); row = []; field = '';
    } else field += c;
  }
  if (field !== '' || row.length) { row.push(field); rows.push(row); }
  return rows;
}

test('filtering by instance and kind with the form shows exactly those lines, and the CSV holds them', async () => {
  const { page, context } = await open('/log?days=30');
  // Fleet-wide first: the instance column and the form's choices name every instance.
  const instances = await page.locator('[data-testid="filter-instance"] option').evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
  assert.ok(instances.includes(INSTANCE), `${INSTANCE} is a choice: ${instances}`);
  assert.ok(await page.locator(`[data-testid="log-line"][data-instance="${INSTANCE}"]`).count() > 0 || instances.length > 1);

  // The keyboard reaches the form; the focused field shows a ring.
  await page.locator('[data-testid="log-summary"]').click();
  let reached = false;
  for (let i = 0; i < 80 && !reached; i += 1) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.dataset?.testid === 'filter-instance');
  }
  assert.ok(reached, 'Tab reaches the instance filter');
  const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(ring, 'none', 'a visible focus');

  // Choose SQLPROD01 and "failed", and apply with the keyboard.
  await page.locator('[data-testid="filter-instance"]').selectOption(INSTANCE);
  await page.locator('[data-testid="filter-kind"]').selectOption('failed');
  await page.locator('[data-testid="filter-apply"]').focus();
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.searchParams.get('instance') === INSTANCE && u.searchParams.get('kind') === 'failed');
  await page.locator('[data-testid="log-table"]').waitFor();
  const rows = await shownRows(page);
  assert.ok(rows.length > 0, 'the demo fails now and then');
  assert.ok(rows.every((r) => r.instance === INSTANCE && r.kind === 'failed'), JSON.stringify(rows.slice(0, 3)));
  const chip = page.locator('[data-testid="kind-filter"][data-kind="failed"]');
  assert.equal(Number(await chip.getAttribute('data-lines')), rows.length, 'as many as the chip counts');
  const range = page.locator('[data-testid="pager-range"]').first();
  assert.equal(Number(await range.getAttribute('data-total')), rows.length, 'one page holds them all');
  // The form keeps the choices.
  assert.equal(await page.locator('[data-testid="filter-instance"]').inputValue(), INSTANCE);
  assert.equal(await page.locator('[data-testid="filter-kind"]').inputValue(), 'failed');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'log-fleet-filtered.png'), fullPage: false });

  // The CSV download: exactly these rows.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid="csv-link"]').click()]);
  assert.match(download.suggestedFilename(), /\.csv$/);
  const csv = parseCsv(fs.readFileSync(await download.path(), 'utf8'));
  assert.deepEqual(csv[0], ['time', 'instance', 'job', 'kind', 'text', 'count']);
  const records = csv.slice(1);
  assert.equal(records.length, rows.length, 'as many rows as the filter has');
  records.forEach((r, i) => {
    const want = rows[i];
    assert.deepEqual([r[0], r[1], r[2], r[3], Number(r[5])], [want.time, want.instance, want.job, want.kind, want.count], `row ${i}`);
  });
  await context.close();
});

test('the CSV holds every page of a long filter, not just the page shown', async () => {
  const { page, context } = await open(`/log?days=7&instance=${INSTANCE}&limit=50`);
  const total = Number(await page.locator('[data-testid="pager-range"]').first().getAttribute('data-total'));
  assert.ok(total > 50, `several pages (${total} lines)`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid="csv-link"]').click()]);
  const csv = parseCsv(fs.readFileSync(await download.path(), 'utf8'));
  assert.equal(csv.length - 1, total);
  const first = (await shownRows(page)).slice(0, 50);
  first.forEach((want, i) => assert.deepEqual([csv[i + 1][0], csv[i + 1][1], csv[i + 1][3]], [want.time, want.instance, want.kind]));
  await context.close();
});

test('a line\'s link opens its job\'s timeline at that moment', async () => {
  const { page, context } = await open(`/log?days=7&instance=${INSTANCE}&kind=succeeded`);
  const link = page.locator('[data-testid="log-line"] [data-testid="log-job-link"]').first();
  const job = (await link.textContent()).trim();
  const time = await page.locator('[data-testid="log-line"]').first().locator('time').getAttribute('datetime');
  await link.click();
  await page.waitForURL((u) => u.pathname.startsWith('/jobs/'));
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('instance'), INSTANCE);
  assert.equal(new Date(url.searchParams.get('at')).getTime(), new Date(time).getTime(), 'at that moment');
  assert.ok((await page.locator('h1').first().textContent()).includes(job), `the page of ${job}`);
  await context.close();
});

test('a time range in the page\'s zone filters, and a bad one is named beside its field', async () => {
  const { page, context } = await open(`/log?days=7&instance=${INSTANCE}`);
  const label = await page.locator('label[for="log-from"]').textContent();
  const zone = label.match(/\(([^)]+)\)/)[1];
  assert.ok(zone.length > 0, label);
  const rows = await shownRows(page);
  // The hour of the 20th newest line, as the instance's wall clock.
  const pick = rows[Math.min(20, rows.length - 1)].time;
  const local = pick.slice(0, 13); // YYYY-MM-DDTHH
  await page.locator('[data-testid="filter-from"]').fill(`${local}:00`);
  await page.locator('[data-testid="filter-to"]').fill(`${local}:59`);
  await page.locator('[data-testid="filter-apply"]').click();
  await page.waitForURL((u) => u.searchParams.get('from'));
  await page.locator('[data-testid="log-summary"]').waitFor();
  const inRange = await shownRows(page);
  assert.ok(inRange.length > 0);
  assert.ok(inRange.every((r) => r.time.startsWith(local)), `${local}: ${inRange.map((r) => r.time).slice(0, 3)}`);
  await context.close();

  const bad = await open('/log?from=yesterday', { status: 400 });
  const err = bad.page.locator('[data-testid="field-error"][data-field="from"]');
  assert.match(await err.textContent(), /from must be .*"yesterday"/);
  assert.equal(await bad.page.locator('[data-testid="filter-from"]').getAttribute('aria-describedby'), 'log-from-error');
  await bad.page.screenshot({ path: path.join(RESULTS_DIR, 'log-bad-from.png') });
  await bad.context.close();
});

test('the page reads on a phone and in the dark, with a legend of the kinds in words', async () => {
  for (const [name, opts] of [['log-phone-dark', { width: 390, height: 844, colorScheme: 'dark' }], ['log-wide-dark', { colorScheme: 'dark' }]]) {
    const { page, context } = await open('/log?days=1&problems=1', opts);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${name}: no sideways scrolling (${overflow}px)`);
    const legend = page.locator('[data-testid="log-legend"]');
    await legend.locator('summary').click();
    const words = await legend.locator('li .badge').allTextContents();
    assert.ok(words.length >= 12 && words.every((w) => w.trim().length > 0), `every kind has a word: ${words}`);
    await page.screenshot({ path: path.join(RESULTS_DIR, `${name}.png`), fullPage: false });
    await context.close();
  }
});
