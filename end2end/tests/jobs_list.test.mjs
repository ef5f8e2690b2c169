// The jobs list as an SSMS user reads it: each job's owner, category and whether it is
// enabled, and the list filtered by them with the filter form (a plain GET form: choosing an
// owner and submitting narrows the rows to that owner's jobs, says "filtered: N of M jobs",
// keeps the filter in the sort links, and "clear" brings every job back). On a phone (390 px)
// the three values are tiles of each job's card, inside the screen.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/jobs_list.test.mjs
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

const INSTANCE = 'SQLPROD01';

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
    viewport: { width: 1280, height: 900 },
    timeout: 60_000,
  });
  context.setDefaultTimeout(30_000);
});

after(async () => {
  await context?.close();
  if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  await server?.stop();
  assert.deepEqual(problems, [], 'no page error or console error');
});

async function newPage() {
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  return page;
}

/** Each row's job id, owner, category and enabled, as shown. */
async function rows(page) {
  return page.$$eval('[data-testid="job-row"]', (trs) => trs.map((tr) => ({
    id: tr.dataset.jobId,
    owner: tr.querySelector('[data-testid="job-owner"]').textContent.trim(),
    category: tr.querySelector('[data-testid="job-category"]').textContent.trim(),
    enabled: tr.querySelector('[data-testid="job-enabled"]').textContent.trim(),
  })));
}

async function apiJobs(page) {
  const r = await page.request.get(`${base}/api/instances/${INSTANCE}/jobs?days=7`);
  assert.equal(r.status(), 200);
  return (await r.json()).jobs;
}

test('choosing an owner in the filter form narrows the list to that owner\'s jobs', async () => {
  const page = await newPage();
  // Wide enough for every column.
  await page.setViewportSize({ width: 1680, height: 1000 });
  await page.goto(`${base}/jobs?instance=${INSTANCE}&days=7`);
  const jobs = await apiJobs(page);
  const all = await rows(page);
  assert.equal(all.length, jobs.length, 'every job, unfiltered');
  // The columns an SSMS user expects, as the API has them.
  const heads = await page.$$eval(
    'table[data-testid="jobs-table"] thead th',
    (ths) => ths.filter((t) => t.getBoundingClientRect().width > 0).map((t) => t.textContent.trim()),
  );
  for (const h of ['Owner', 'Category', 'Enabled']) assert.ok(heads.some((x) => x.startsWith(h)), `${h} in ${heads}`);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 1680, `every column fits: ${width}`);
  for (const r of all) {
    const j = jobs.find((x) => x.id === r.id);
    assert.equal(r.owner, j.owner ?? '—', r.id);
    assert.equal(r.category, j.category, r.id);
    assert.equal(r.enabled, j.enabled ? 'Yes' : 'No', r.id);
  }
  assert.equal(await page.locator('[data-testid="jobs-filtered"]').count(), 0);

  // Choose the ETL team's login and submit the form, as a reader does.
  const owner = 'CORP\\etl_admin';
  const want = jobs.filter((j) => j.owner === owner).map((j) => j.id).sort();
  assert.ok(want.length >= 3 && want.length < jobs.length, `a narrowing owner: ${want.length} of ${jobs.length}`);
  await page.selectOption('[data-testid="filter-owner"]', owner);
  await Promise.all([page.waitForURL(/owner=/), page.click('[data-testid="jobs-filter-apply"]')]);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('owner'), owner);
  assert.equal(url.searchParams.get('instance'), INSTANCE, 'the instance is kept');
  assert.equal(url.searchParams.get('days'), '7', 'the window is kept');
  const shown = await rows(page);
  assert.deepEqual(shown.map((r) => r.id).sort(), want, 'exactly that owner\'s jobs');
  assert.ok(shown.every((r) => r.owner === owner));
  assert.equal(
    (await page.textContent('[data-testid="jobs-filtered"]')).replace(/\s+/g, ' ').trim(),
    `filtered: ${want.length} of ${jobs.length} jobs · clear`,
  );
  assert.equal(await page.inputValue('[data-testid="filter-owner"]'), owner, 'the form shows the choice');

  // Then only the disabled ones among them: the filters combine.
  await page.selectOption('[data-testid="filter-enabled"]', 'no');
  await Promise.all([page.waitForURL(/enabled=no/), page.click('[data-testid="jobs-filter-apply"]')]);
  const disabled = jobs.filter((j) => j.owner === owner && !j.enabled).map((j) => j.id).sort();
  assert.ok(disabled.length >= 1, 'the demo\'s disabled ETL job');
  assert.deepEqual((await rows(page)).map((r) => r.id).sort(), disabled);

  // A sort link keeps the filter.
  await Promise.all([page.waitForURL(/sort=name/), page.click('th.col-name a.sort')]);
  assert.deepEqual((await rows(page)).map((r) => r.id).sort(), disabled, 'sorting keeps the filter');
  assert.equal(new URL(page.url()).searchParams.get('owner'), owner);

  // "clear" shows every job again.
  await Promise.all([page.waitForURL((u) => !u.searchParams.has('owner')), page.click('[data-testid="jobs-filter-clear"]')]);
  assert.equal((await rows(page)).length, jobs.length);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'jobs-list-desk.png'), fullPage: false });

  // On a laptop the three columns would not fit: category and owner are a line under the
  // name (a disabled job has its tag there).
  await page.setViewportSize({ width: 1280, height: 900 });
  const laptop = await page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    owner: document.querySelector('[data-testid="job-owner"]').getBoundingClientRect().width,
    meta: [...document.querySelectorAll('[data-testid="job-meta"]')].map((m) => m.innerText.trim()),
  }));
  assert.equal(laptop.owner, 0, 'no Owner column at 1280 px');
  const etl = jobs.find((j) => j.owner === owner);
  assert.ok(laptop.meta.includes(`${etl.category} · ${owner}`), `the line under a name: ${laptop.meta.slice(0, 3)}`);
  assert.ok(laptop.width <= 1280, `the list fits the screen: ${laptop.width}`);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'jobs-list-laptop.png'), fullPage: false });
  await page.close();
});

test('on a phone the owner, category and enabled are tiles of each card, inside the screen', async () => {
  const page = await newPage();
  await page.setViewportSize({ width: 390, height: 900 });
  await page.goto(`${base}/jobs?instance=${INSTANCE}&days=7&category=ETL`);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `no horizontal scroll: ${width}`);
  const boxes = await page.$$eval('[data-testid="job-row"]', (trs) => trs.map((tr) => {
    const box = (t) => tr.querySelector(`[data-testid="${t}"]`).getBoundingClientRect();
    const [o, c, e] = [box('job-owner'), box('job-category'), box('job-enabled')];
    return { o: [o.left, o.right, o.top, o.width], c: [c.left, c.right, c.top], e: [e.left, e.right, e.top] };
  }));
  assert.ok(boxes.length > 0);
  for (const b of boxes) {
    assert.ok(b.o[3] > 0, 'the owner shows');
    assert.ok(Math.abs(b.o[2] - b.c[2]) < 2 && Math.abs(b.c[2] - b.e[2]) < 2, `one row of tiles: ${JSON.stringify(b)}`);
    assert.ok(b.o[1] <= b.c[0] && b.c[1] <= b.e[0] && b.e[1] <= 390, `side by side, inside: ${JSON.stringify(b)}`);
  }
  await page.screenshot({ path: path.join(RESULTS_DIR, 'jobs-list-phone.png'), fullPage: false });
  await page.close();
});
