// The job page: durations (p50, p95, max over the window, per weekday and of month-ends, and
// what the latest run is judged against), long and short runs
// flagged with an icon and a word, a run's steps, a run in progress against its usual time,
// and the deep link `?at=` marking a moment (the window holding it, the chart's marker, the
// nearest row highlighted and scrolled into view by a fragment, without script).
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/job.test.mjs
//
// Assertions about durations and the moment keep to SQLPROD01, the demo's first instance;
// steps and a run in progress are looked for across the fleet, SQLPROD01 first (nothing of it
// runs at the demo's now).
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
const DAY = 24 * 3600 * 1000;

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
    // The malformed link's page answers 400 on purpose.
    if (m.type() === 'error' && !/status of 400/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  return page;
}

/** The data the job page is built from (its server function), over 30 days. */
async function timeline(instance, jobId) {
  const body = new URLSearchParams({ instance, job_id: jobId, days: '30' });
  const res = await fetch(`${base}/api/fn/job_timeline`, { method: 'POST', body });
  assert.equal(res.status, 200, `the timeline of ${instance}/${jobId}`);
  return res.json();
}

async function jobsOf(instance) {
  const res = await fetch(`${base}/api/instances/${encodeURIComponent(instance)}/jobs`);
  assert.equal(res.status, 200, `the jobs of ${instance}`);
  return (await res.json()).jobs;
}

/** The first job of `instance` whose 30-day timeline has a line for which `pick` holds. */
async function findLine(instance, pick) {
  for (const job of await jobsOf(instance)) {
    const data = await timeline(instance, job.id);
    const line = data.lines.find(pick);
    if (line) return { job, data, line };
  }
  return null;
}

/** The same across the fleet, SQLPROD01 first. */
async function findInFleet(pick) {
  const res = await fetch(`${base}/api/instances`);
  const names = (await res.json()).instances.filter((i) => i.state === 'Ok').map((i) => i.name);
  for (const name of [INSTANCE, ...names.filter((n) => n !== INSTANCE)]) {
    const found = await findLine(name, pick);
    if (found) return { instance: name, ...found };
  }
  return null;
}

let longRun = null;
async function theLongRun() {
  longRun ??= await findLine(INSTANCE, (l) => l.run?.flag?.Long != null);
  assert.ok(longRun, `some job of ${INSTANCE} has a run flagged long over 30 days`);
  return longRun;
}

const jobUrl = (instance, id, q) => `${base}/jobs/${encodeURIComponent(id)}?${q}&instance=${encodeURIComponent(instance)}`;

test('the durations table: p50, p95 and max over the window and per weekday, the factors named', async () => {
  const { job, data } = await theLongRun();
  const page = await newPage();
  const res = await page.goto(jobUrl(INSTANCE, job.id, 'days=30'));
  assert.equal(res.status(), 200);
  const table = page.locator('[data-testid="durations-table"]');
  await table.waitFor();
  const all = table.locator('[data-testid="durations-all"]');
  const secs = await all.locator('td[data-secs]').evaluateAll((tds) => tds.map((td) => Number(td.dataset.secs)));
  assert.equal(secs.length, 3, 'p50, p95 and max');
  const [p50, p95, max] = secs;
  assert.ok(p50 > 0 && p50 <= p95 && p95 <= max, `ordered: ${secs}`);
  assert.deepEqual([p50, p95, max], [data.durations.window.p50, data.durations.window.p95, data.durations.window.max]);
  const text = await all.innerText();
  assert.match(text, /Any day\s+\d+\s+(\d+[hm] \d\d[ms]|\d+s)/, `numbers in words: ${text}`);
  const days = table.locator('[data-testid="durations-day"] th');
  assert.deepEqual(await days.allInnerTexts(), ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']);
  const runs = await table.locator('[data-testid="durations-day"] td[data-label="Runs"], [data-testid="durations-month-end"] td[data-label="Runs"]').allInnerTexts();
  assert.equal(runs.length, 8, 'seven weekdays and the month\'s last day');
  assert.equal(runs.reduce((a, n) => a + Number(n), 0), data.durations.window.count, 'the weekdays and month-ends add up to the window');
  const baseline = await page.locator('[data-testid="durations-baseline"]').innerText();
  assert.match(baseline, /^The latest run is judged against \d+ (\w+ runs|runs of the last 30 days \((only \d+|no) [\w-]+ runs?\)): p50 .+, p95 .+\.$/, baseline);
  const rule = await page.locator('[data-testid="durations-rule"]').innerText();
  assert.match(rule, /longer than p95 × 1\.5/);
  assert.match(rule, /under p50 × 0\.25/);
  await page.locator('[data-testid="durations-rule"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(RESULTS_DIR, 'job-durations.png') });
  await page.close();
});

test('a run longer than p95 × 1.5 is flagged in the runs table with an icon and a word', async () => {
  const { job, data } = await theLongRun();
  const page = await newPage();
  await page.goto(jobUrl(INSTANCE, job.id, 'days=30'));
  const flags = page.locator('[data-testid="timeline-table"] [data-testid="duration-flag"][data-flag="long"]');
  assert.equal(await flags.count(), data.durations.long, 'every long run of the window is flagged');
  const flag = flags.first();
  await flag.scrollIntoViewIfNeeded();
  assert.ok(await flag.isVisible());
  assert.match(await flag.innerText(), /▲\s*Long/, 'an icon and a word');
  const p95 = data.durations.window.p95;
  assert.match(await flag.getAttribute('title'), /^Longer than p95 \(.+\) × 1\.5$/);
  // The run's own duration is the row's, and more than p95 × 1.5.
  const row = flag.locator('xpath=ancestor::tr');
  const line = data.lines.find((l) => l.run?.flag?.Long != null);
  assert.ok(line.run.duration_secs > p95 * 1.5);
  assert.ok((await row.locator('td[data-label="Duration"]').innerText()).startsWith(line.run.duration));
  await page.close();
});

test('a failed run expands into its steps, as SSMS\'s Log File Viewer does, and says its failed step\'s own words', async () => {
  const failedStep = (l) => (l.run?.steps ?? []).findLast((s) => s.outcome === 'Failed' && s.id > 0);
  // A run of several steps, where there is one, to show their order.
  const found = await findInFleet((l) => l.run?.outcome === 'Failed' && failedStep(l) != null && l.run.steps.length > 1)
    ?? await findInFleet((l) => l.run?.outcome === 'Failed' && failedStep(l) != null);
  assert.ok(found, 'some failed run in the fleet has its steps (msdb\'s step rows)');
  const steps = found.line.run.steps;
  const failed = failedStep(found.line);
  const page = await newPage();
  await page.goto(jobUrl(found.instance, found.job.id, 'days=30'));
  const head = failed.message.slice(0, 60);
  const details = page.locator('[data-testid="run-steps"]').filter({ hasText: head }).first();
  await details.scrollIntoViewIfNeeded();
  const row = details.locator('xpath=ancestor::tr');
  // The run's message is the failed step's words, not msdb's job-outcome line.
  const message = await row.locator('.message').innerText();
  assert.ok(message.includes(`step ${failed.id} (${failed.name})`) && message.includes(head), message);
  assert.ok(!message.includes('The job failed'), message);
  const items = details.locator('[data-testid="run-step"]');
  assert.equal(await items.first().isVisible(), false, 'closed at first');
  await details.locator('summary').click();
  await items.first().waitFor();
  assert.equal(await items.count(), steps.length, 'a row per step attempt');
  const shown = await items.allInnerTexts();
  steps.forEach((s, i) => {
    assert.ok(shown[i].includes(`Step ${s.id} (${s.name})`), shown[i]);
    if (s.duration) assert.ok(shown[i].includes(s.duration), shown[i]);
    if (s.message) assert.ok(shown[i].includes(s.message.slice(0, 40)), shown[i]);
  });
  const last = items.nth(steps.lastIndexOf(failed));
  assert.equal(await last.getAttribute('data-outcome'), 'failed');
  assert.match(await details.locator('summary').innerText(), new RegExp(`^${steps.length} steps?, failed in step ${failed.id}`));
  fs.mkdirSync('/tmp/steps-shots', { recursive: true });
  await row.screenshot({ path: '/tmp/steps-shots/expanded-run.png' });
  await page.close();
});

test('a run in progress shows its time so far against p50 and p95, and its finish or that it is past its usual time', async (t) => {
  const found = await findInFleet((l) => l.run?.progress != null);
  if (!found) {
    t.skip('nothing runs at the demo\'s now');
    return;
  }
  const page = await newPage();
  await page.goto(jobUrl(found.instance, found.job.id, 'days=30'));
  const note = page.locator('[data-testid="running-note"]').first();
  const text = await note.innerText();
  assert.match(text, /Running now, since .+: .+ so far; usually .+ \(p50\), .+ \(p95\)\./, text);
  const p = found.line.run.progress;
  if (p.elapsed_secs < p.p50) assert.match(text, /Expected to finish about .+ \(start \+ p50\)/);
  else assert.match(text, /Past its usual time\./);
  await page.close();
});

test('?at= opens the smallest window holding the moment, marks it and scrolls its row into view', async () => {
  const { job, line } = await theLongRun();
  const at = new Date(Date.parse(line.run.start) + 60_000).toISOString().replace(/\.000Z$/, 'Z');
  const ago = Date.parse(DEMO_NOW) - Date.parse(at);
  const days = ago <= DAY ? '1' : ago <= 7 * DAY ? '7' : '30';
  // A page without script: the server redirects to the window and the row's fragment.
  const page = await context.newPage();
  await page.route('**/pkg/*.{js,wasm}', (r) => r.abort());
  await page.goto(`${base}/jobs/${encodeURIComponent(job.id)}?at=${at}&instance=${INSTANCE}`);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('days'), days, `the smallest window holding ${at}`);
  assert.equal(url.searchParams.get('at'), at, 'the moment stays in the URL');
  assert.equal(url.hash, '#moment');
  assert.match(await page.locator('[data-testid="at-note"]').innerText(), /Shown at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
  const marker = page.locator('[data-testid="at-marker"]');
  assert.equal(Number(await marker.getAttribute('data-at')), Date.parse(at), 'the chart marks the moment');
  const row = page.locator('#moment');
  assert.equal(await row.count(), 1);
  assert.equal(await row.getAttribute('data-testid'), 'moment-line');
  const inView = await row.evaluate((e) => {
    const r = e.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  });
  assert.ok(inView, 'the row is scrolled into view without script');
  // The nearest row is the flagged run's.
  const started = await row.locator('td[data-label="Run started"] time').getAttribute('datetime');
  assert.equal(Date.parse(started), Date.parse(line.run.start));
  assert.match(await row.innerText(), /Nearest to the moment/);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'job-at.png') });
  await page.close();
});

test('a malformed ?at= is named (400), the page still shows; one outside 30 days says so', async () => {
  const { job } = await theLongRun();
  const page = await newPage();
  const res = await page.goto(jobUrl(INSTANCE, job.id, 'at=not-a-time'));
  assert.equal(res.status(), 400);
  const note = page.locator('[data-testid="at-note"][role="alert"]');
  assert.match(await note.innerText(), /The link's moment cannot be read: at must be .*"not-a-time"/);
  assert.ok(await page.locator('[data-testid="durations"]').isVisible(), 'the job is shown all the same');
  const old = new Date(Date.parse(DEMO_NOW) - 45 * DAY).toISOString().replace(/\.000Z$/, 'Z');
  await page.goto(jobUrl(INSTANCE, job.id, `at=${old}`));
  assert.equal(new URL(page.url()).searchParams.get('days'), '30');
  const outside = page.locator('[data-testid="at-note"][data-state="outside"]');
  assert.match(await outside.innerText(), /is outside the last 30 days/);
  assert.equal(await page.locator('[data-testid="at-marker"]').count(), 0);
  await page.close();
});

test('on a phone the durations fit the screen', async () => {
  const { job } = await theLongRun();
  const page = await context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(jobUrl(INSTANCE, job.id, 'days=7'));
  const table = page.locator('[data-testid="durations-table"]');
  await table.scrollIntoViewIfNeeded();
  const box = await table.boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390, `inside the screen: ${JSON.stringify(box)}`);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'job-durations-phone.png') });
  await page.close();
});
