// The schedule simulator in the browser: every SQL Agent case of the engine's case data, pasted
// into #schedule-json, gives exactly the runs the native tests expect (the browser's engine is
// the server's); edits recompute with no request; the Agent's own rules show as diagnostics; a
// link reproduces the view; a demo job's change names the overlap it creates and the
// sp_update_schedule that applies it; every dialect recomputes as a column is typed; an
// invalid schedule (or one the chosen pg_cron rejects) has no statement; fixed-value columns
// are selects; a zone change keeps "runs after" the same instant; every control has a label
// and the keyboard reaches it; and the time per keystroke, measured.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/simulate.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
  BASE_URL, CHROMIUM, CHROMIUM_ARGS, DEFAULT_BASE_URL, REPO_DIR, RESULTS_DIR, SUNDIAL_BIN,
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

async function open(url, { width = 1440, height = 1000 } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console on ${page.url()}: ${m.text()}`); });
  const res = await page.goto(`${base}${url}`);
  assert.equal(res.status(), 200, url);
  await ready(page);
  return { page, context };
}

/** Wait until the page's islands are live (the simulator marks its root when it is). */
async function ready(page) {
  await page.locator('body[data-hydrated="true"]').waitFor();
  if (new URL(page.url()).pathname === '/simulate') await page.locator('#sim-root[data-ready="true"]').waitFor();
}

/** The simulator as a DBA reaches it: the jobs list, the job's page, "Simulate a change". */
async function simulatorOf(job) {
  const { page, context } = await open('/jobs?days=7');
  await page.locator('[data-testid="job-row"]', { hasText: job }).locator('a.job-link').click();
  await page.waitForURL((u) => u.pathname.startsWith('/jobs/'));
  await page.locator('[data-testid="simulate-link"]').click();
  await page.waitForURL((u) => u.pathname === '/simulate');
  await ready(page);
  return { page, context };
}

/** The engine's SQL Agent cases (TOML), read with Python's tomllib. */
function agentCases() {
  const dir = path.join(REPO_DIR, 'app', 'engine', 'tests', 'cases', 'agent');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.toml')).sort();
  assert.ok(files.length > 0, `no case files in ${dir}`);
  // Python writes each row's JSON itself: JavaScript numbers would round msdb's 64-bit extremes.
  const script = 'import json,sys,tomllib\nprint(json.dumps({f: [dict(c, row=json.dumps(c["schedule"])) for c in tomllib.load(open(f,"rb")).get("case", [])] for f in sys.argv[1:]}))';
  const all = JSON.parse(execFileSync('python3', ['-c', script, ...files.map((f) => path.join(dir, f))]));
  const cases = Object.entries(all).flatMap(([f, cs]) => cs.map((c) => ({ ...c, file: path.basename(f) })));
  assert.ok(cases.length > 100, `only ${cases.length} cases`);
  return cases;
}

/** A naive local time minus `secs` seconds. */
function minus(local, secs) {
  const d = new Date(`${local}Z`);
  return new Date(d.getTime() - secs * 1000).toISOString().slice(0, 19);
}

const runs = (page) => page.locator('#next-runs time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')));
const diagnostics = (page) => page.locator('#schedule-diagnostics').innerText();

test('every SQL Agent case, pasted as a row, gives in the browser the runs the native tests expect', async () => {
  const cases = agentCases();
  const { page, context } = await open('/simulate?dialect=agent');
  let checked = 0;
  const failures = [];
  for (const c of cases) {
    const tz = c.tz || 'UTC';
    let after = c.after || '1970-01-01T00:00:00';
    let count = c.count || (c.expect ? c.expect.length : 5);
    let window = null;
    if (c.window) {
      // The window's start is inclusive and `after` is not; in a zone with DST a second
      // before the start may lie in a gap, so start two hours early and keep the window's runs.
      after = minus(c.window[0], tz === 'UTC' ? 1 : 7200);
      window = c.window;
      count = Math.min(500, (c.expect ? c.expect.length : 0) + (tz === 'UTC' ? 1 : 400));
    }
    if (!c.expect && !c.expect_error && !c.expect_errors && !c.describe) continue;
    if (!c.after && !c.window && tz !== 'UTC') continue; // epoch in another zone: no local spelling
    const url = `/simulate?dialect=agent&tz=${encodeURIComponent(tz)}&after=${after}&count=${Math.max(count, 1)}`;
    await page.goto(`${base}${url}`);
    await ready(page);
    await page.locator('#schedule-json').fill(c.row);
    const label = `${c.file}: ${c.name}`;
    if (c.expect) {
      let got = await runs(page);
      if (window) got = got.filter((t) => t >= window[0] && t < window[1]);
      if (JSON.stringify(got) !== JSON.stringify(c.expect)) failures.push(`${label}\n  want ${JSON.stringify(c.expect)}\n  got  ${JSON.stringify(got)}`);
    }
    for (const e of [c.expect_error, ...(c.expect_errors || [])].filter(Boolean)) {
      const text = await diagnostics(page);
      if (!text.includes(e)) failures.push(`${label}\n  diagnostics lack ${JSON.stringify(e)}: ${JSON.stringify(text)}`);
      if ((await runs(page)).length !== 0) failures.push(`${label}\n  an invalid row shows runs`);
    }
    if (c.describe) {
      const text = (await page.locator('[data-testid="describe"]').innerText()).trim();
      if (text !== c.describe) failures.push(`${label}\n  describe ${JSON.stringify(text)}\n  want     ${JSON.stringify(c.describe)}`);
    }
    checked += 1;
  }
  assert.deepEqual(failures, [], `${failures.length} of ${checked} cases differ`);
  assert.ok(checked > 100, `checked ${checked} cases`);
  await context.close();
});

test('editing a control recomputes the next runs with no network request; 5 seconds is refused by name', async () => {
  const { page, context } = await open('/simulate?dialect=agent&tz=America%2FNew_York&after=2026-11-22T07:00:00&count=10');
  const before = await runs(page);
  assert.equal(before.length, 10, 'ten next runs by default');
  assert.equal(before[0], '2026-11-23T02:00:00', 'the example row: daily at 02:00');
  const requests = [];
  page.on('request', (r) => { if (['fetch', 'xhr', 'document'].includes(r.resourceType())) requests.push(r.url()); });
  await page.locator('#sim-at').fill('04:30:00');
  await page.waitForFunction(() => document.querySelector('#next-runs time')?.getAttribute('datetime') === '2026-11-23T04:30:00');
  await page.locator('#sim-days').fill('2');
  await page.waitForFunction(() => document.querySelectorAll('#next-runs time')[1]?.getAttribute('datetime') === '2026-11-25T04:30:00');
  assert.deepEqual(requests, [], 'no request while editing');
  assert.equal(await diagnostics(page), '', 'no diagnostic for a valid row');

  // Every 5 seconds: the Agent's own rule (at least 10), named, and the last valid runs kept, marked stale.
  await page.locator('#sim-every').check();
  await page.locator('#sim-unit').selectOption('2');
  await page.locator('#sim-every-n').fill('5');
  await page.waitForFunction(() => document.querySelector('#schedule-diagnostics').innerText.includes('freq_subday_interval = 5'));
  assert.match(await diagnostics(page), /freq_subday_interval = 5: .*10/);
  assert.equal((await runs(page)).length, 0, 'an invalid row has no next runs');
  assert.ok(await page.locator('[data-testid="stale-runs"] time').count() > 0, 'the last valid preview stays, marked stale');
  assert.deepEqual(requests, [], 'still no request');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'simulate-invalid.png'), fullPage: true });
  await context.close();
});

test('a link reproduces the view', async () => {
  const { page, context } = await open('/simulate?dialect=agent&tz=Europe%2FLondon&after=2024-03-30T12:00:00&count=4');
  await page.locator('#sim-start-date').fill('2024-01-01');
  await page.locator('#sim-at').fill('01:30:00');
  await page.waitForFunction(() => document.querySelector('#next-runs time')?.getAttribute('datetime') === '2024-03-31T02:00:00');
  assert.match(await page.locator('#next-runs').innerText(), /DST gap/, 'a run in the gap says so');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('row')?.includes('"active_start_time":13000'));
  const url = page.url();
  assert.match(url, /[?&]row=/);
  const first = await runs(page);
  const json = await page.locator('#schedule-json').inputValue();
  const again = await open(url.replace(base, ''));
  assert.deepEqual(await runs(again.page), first);
  assert.equal(await again.page.locator('#schedule-json').inputValue(), json);
  assert.equal(await again.page.locator('#sim-tz').inputValue(), 'Europe/London');
  await again.context.close();
  await context.close();
});

test('any IANA zone works: another zone is fetched once, then computed in the browser', async () => {
  const { page, context } = await open('/simulate?dialect=agent&tz=UTC&after=2026-11-22T00:00:00&count=3');
  await page.locator('#sim-tz').fill('Asia/Kathmandu');
  await page.locator('#sim-tz').press('Enter');
  await page.locator('#sim-tz').blur();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('tz') === 'Asia/Kathmandu');
  // Daily at 02:00 in Kathmandu (UTC+5:45) is 20:15 UTC the day before.
  await page.waitForFunction(() => document.querySelector('#next-runs .utc')?.textContent.includes('20:15:00'));
  assert.ok(await page.locator('datalist#zones option').count() > 400, 'every zone the server knows is offered');
  await context.close();
});

test('a change to a demo job names the overlap it creates and gives the sp_update_schedule that applies it', async () => {
  const { page, context } = await simulatorOf('IndexOptimize - USER_DATABASES');
  assert.match(await page.locator('[data-testid="sim-job"]').innerText(), /IndexOptimize - USER_DATABASES/);
  assert.equal(await page.locator('#sim-tz').inputValue(), 'America/New_York', "the instance's zone");
  // Sunday 03:00 → Sunday 01:00, on top of the weekly full backup.
  await page.locator('#sim-at').fill('01:00:00');
  await page.waitForFunction(() => document.querySelector('#next-runs time')?.getAttribute('datetime').endsWith('T01:00:00'));
  const created = page.locator('[data-testid="created"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="created"]')?.innerText.includes('DatabaseBackup - USER_DATABASES - FULL'));
  assert.match(await created.innerText(), /IndexOptimize - USER_DATABASES at Sun \d{4}-\d\d-\d\d 01:00 overlaps DatabaseBackup - USER_DATABASES - FULL/);
  const statement = await page.locator('[data-testid="statement"]').innerText();
  assert.match(statement, /^EXEC msdb\.dbo\.sp_update_schedule @schedule_id = \d+,\s+@active_start_time = 10000;$/m);
  assert.doesNotMatch(statement, /@freq_type/, 'only what changed');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'simulate-job.png'), fullPage: true });
  // The replay runs on every edit: time 100 edits of the start time, each to its redrawn impact.
  const jobs = await page.evaluate(() => document.querySelectorAll('[data-testid="impact-summary"]').length);
  assert.equal(jobs, 1);
  const ms = await page.evaluate(async () => {
    const at = document.querySelector('#sim-at');
    const body = document.querySelector('#sim-impact-body');
    const times = [];
    for (let i = 0; i < 100; i += 1) {
      const done = new Promise((resolve) => {
        const obs = new MutationObserver(() => { obs.disconnect(); resolve(performance.now()); });
        obs.observe(body, { subtree: true, childList: true, characterData: true });
      });
      const t0 = performance.now();
      at.value = `0${i % 10}:${String((i * 7) % 60).padStart(2, '0')}:00`;
      at.dispatchEvent(new Event('input', { bubbles: true }));
      times.push((await done) - t0);
    }
    times.sort((a, b) => a - b);
    return { median: times[50], max: times[99] };
  });
  console.log(`# one edit with the 7-day replay of the demo instance: median ${ms.median.toFixed(1)} ms, max ${ms.max.toFixed(1)} ms`);
  await context.close();
});

test("Primentra's triggered mode answers the test button for the queue state entered", async () => {
  const { page, context } = await open('/simulate?dialect=primentra&tz=UTC');
  assert.equal(await page.locator('#sim-sec-dryrun').isVisible(), false, 'scheduled mode: no test button');
  await page.locator('#col-ProcessingMode').selectOption('triggered');
  await page.locator('#sim-sec-dryrun').waitFor();
  const json = JSON.parse(await page.locator('#schedule-json').inputValue());
  json.TriggerRowThreshold = 1000;
  await page.locator('#schedule-json').fill(JSON.stringify(json));
  await page.locator('#sim-dry-pending').fill('1200');
  await page.waitForFunction(() => document.querySelector('[data-testid="dry-run"]')?.dataset.fire === 'true');
  assert.match(await page.locator('[data-testid="dry-run"]').innerText(), /Would fire\. Row threshold met: 1,200 rows >= threshold 1,000/);
  await page.locator('#sim-dry-pending').fill('10');
  await page.waitForFunction(() => document.querySelector('[data-testid="dry-run"]')?.dataset.fire === 'false');
  await context.close();
});

/** Count the `change` events `selector` fires from now on (in `window.__changes`). */
async function countChanges(page, selector) {
  await page.locator(selector).evaluate((el) => {
    window.__changes = 0;
    el.addEventListener('change', () => { window.__changes += 1; });
  });
}

test('every dialect recomputes as you type in a column, before the field loses focus', async () => {
  const edits = [
    ['cron', 'schedule', '0 5 * * *', '2026-11-23T05:00:00'],
    ['mysql_event', 'STARTS', '2026-01-01 04:30:00', '2026-11-23T04:30:00'],
    ['job_table', 'job_schedule_start', '2026-01-01 02:30:00', '2026-11-22T07:30:00'],
    ['service_broker', 'RunAtInSecondsFromMidnight', '3600', '2026-11-23T01:00:00'],
    ['primentra', 'IntervalMinutes', '7', null],
  ];
  for (const [dialect, column, text, first] of edits) {
    const { page, context } = await open(`/simulate?dialect=${dialect}&tz=UTC&after=2026-11-22T07:00:00&count=3`);
    const before = await runs(page);
    assert.ok(before.length > 0, `${dialect}: the example row has runs`);
    const field = `#col-${column}`;
    await countChanges(page, field);
    await page.locator(field).selectText();
    await page.keyboard.type(text);
    // Still in the field, no `change` yet: the runs follow the keystrokes.
    await page.waitForFunction(([b, f]) => {
      const got = [...document.querySelectorAll('#next-runs time')].map((t) => t.getAttribute('datetime'));
      return got.length > 0 && JSON.stringify(got) !== b && (f === null || got[0] === f);
    }, [JSON.stringify(before), first]);
    assert.equal(await page.evaluate(() => document.activeElement?.id), `col-${column}`, `${dialect}: the field keeps the focus`);
    assert.equal(await page.evaluate(() => window.__changes), 0, `${dialect}: no change event fired`);
    if (dialect === 'cron') await page.screenshot({ path: path.join(RESULTS_DIR, 'simulate-cron-typing.png'), fullPage: true });
    await context.close();
  }
});

test("pgAgent's arrays are a box per slot: ticking and unticking moves the runs and the UPDATE", async () => {
  const { page, context } = await open('/simulate?dialect=pgagent&tz=UTC&after=2026-11-22T07:00:00&count=3');
  const first = (want) => page.waitForFunction((w) => {
    const got = [...document.querySelectorAll('#next-runs time')].map((t) => t.getAttribute('datetime'));
    return JSON.stringify(got) === w;
  }, JSON.stringify(want));
  await first(['2026-11-23T02:00:00', '2026-11-24T02:00:00', '2026-11-25T02:00:00']);
  assert.equal(await page.locator('#sim-columns input[type="checkbox"]').count(), 60 + 24 + 7 + 32 + 12, 'a box per slot');
  await page.locator('[id="col-jscminutes.30"]').check();
  await first(['2026-11-23T02:00:00', '2026-11-23T02:30:00', '2026-11-24T02:00:00']);
  await page.locator('[id="col-jscminutes.0"]').uncheck();
  await first(['2026-11-23T02:30:00', '2026-11-24T02:30:00', '2026-11-25T02:30:00']);
  // The last day of the month (slot 32) alone: 02:30 on 2026-11-30, then 2026-12-31.
  await page.locator('[id="col-jscmonthdays.31"]').check();
  await first(['2026-11-30T02:30:00', '2026-12-31T02:30:00', '2027-01-31T02:30:00']);
  const statement = await page.locator('#sim-statement').innerText();
  assert.match(statement, /UPDATE pgagent\.pga_schedule SET/);
  assert.match(statement.replace(/\s+/g, ''), /jscminutes='\{f(,f){29},t(,f){29}\}'/, 'minute 30 alone in the UPDATE');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'simulate-pgagent-boxes.png'), fullPage: true });
  await context.close();
});

test('an invalid schedule, or one the chosen pg_cron rejects, gives no statement and no runs, and says why', async () => {
  const { page, context } = await open('/simulate?dialect=cron&tz=UTC&after=2026-11-22T07:00:00&count=3&pg_cron=1.4');
  const statement = () => page.locator('#sim-statement').innerText();
  const why = () => page.locator('[data-testid="no-statement"]').innerText();
  assert.match(await statement(), /cron\.alter_job/, 'a valid row: its statement');
  assert.equal(await why(), '');
  await page.locator('#col-schedule').fill('30 seconds');
  await page.waitForFunction(() => document.querySelector('[data-testid="no-statement"]').innerText.includes('pg_cron 1.4'));
  assert.match(await why(), /^No statement: pg_cron 1\.4 has no 'N seconds' schedules .*rejects this one/);
  assert.equal(await statement(), '', 'nothing to copy');
  assert.deepEqual(await runs(page), [], 'no runs for a schedule pg_cron 1.4 refuses');
  assert.match(await diagnostics(page), /pg_cron 1\.4 has no 'N seconds'/);
  // Copy is offered only for a statement: disabled, the reason beside it named as its description.
  const copy = page.locator('#sim-copy');
  assert.ok(await copy.isDisabled(), 'no Copy for an invalid schedule');
  assert.equal(await copy.getAttribute('aria-describedby'), 'sim-no-statement');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'simulate-pgcron-rejects.png'), fullPage: true });
  // 1.5 takes it: runs every 30 seconds, and the statement.
  await page.locator('#sim-pgcron').selectOption('1.5');
  await page.waitForFunction(() => document.querySelector('#sim-statement').innerText.includes('cron.alter_job'));
  assert.equal(await why(), '');
  assert.equal((await runs(page)).length, 3);
  assert.ok(await copy.isEnabled(), 'Copy again once there is a statement');
  // An expression the page calls invalid.
  await page.locator('#col-schedule').fill('0 0 * * 8');
  await page.waitForFunction(() => document.querySelector('[data-testid="no-statement"]').innerText !== '');
  assert.equal(await why(), 'No statement: the schedule is invalid — fix the errors above.');
  assert.equal(await statement(), '');
  assert.deepEqual(await runs(page), []);
  await context.close();
});

test('columns of fixed values are selects with the values the source allows; an odd value stays, called invalid', async () => {
  const { page, context } = await open('/simulate?dialect=mysql_event&tz=UTC&after=2026-11-22T07:00:00&count=3');
  const options = (id) => page.locator(`select#${id} option`).evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(await options('col-EVENT_TYPE'), ['RECURRING', 'ONE TIME']);
  assert.deepEqual(await options('col-STATUS'), ['ENABLED', 'DISABLED', 'SLAVESIDE_DISABLED']);
  const fields = await options('col-INTERVAL_FIELD');
  for (const f of ['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR', 'DAY_HOUR', 'YEAR_MONTH']) assert.ok(fields.includes(f), f);
  assert.equal(await page.locator('#col-INTERVAL_FIELD').inputValue(), 'DAY');
  assert.equal(await page.locator('input#col-INTERVAL_FIELD').count(), 0, 'no free text');
  assert.deepEqual(await runs(page), ['2026-11-23T02:00:00', '2026-11-24T02:00:00', '2026-11-25T02:00:00']);
  await page.locator('#col-INTERVAL_FIELD').selectOption('HOUR');
  await page.waitForFunction(() => document.querySelector('#next-runs time')?.getAttribute('datetime') === '2026-11-22T08:00:00');
  assert.match(await page.locator('#schedule-json').inputValue(), /"INTERVAL_FIELD": "HOUR"/);
  await page.locator('#col-STATUS').selectOption('DISABLED');
  await page.waitForFunction(() => document.querySelectorAll('#next-runs time').length === 0);
  // A value the source would refuse, pasted: kept in its select, and named as invalid.
  const json = JSON.parse(await page.locator('#schedule-json').inputValue());
  json.STATUS = 'ENABLED';
  json.INTERVAL_FIELD = 'FORTNIGHT';
  await page.locator('#schedule-json').fill(JSON.stringify(json));
  await page.waitForFunction(() => document.querySelector('#col-INTERVAL_FIELD')?.value === 'FORTNIGHT');
  assert.equal(await page.locator('#col-INTERVAL_FIELD').evaluate((e) => e.tagName), 'SELECT');
  assert.match(await diagnostics(page), /INTERVAL_FIELD/);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'simulate-mysql-selects.png'), fullPage: true });
  await context.close();
  // The other dialects' enumerated columns.
  for (const [dialect, id, values] of [
    ['job_table', 'col-job_status', ['ENABLED', 'DISABLED', 'ABORTED', 'ERROR', 'FINISHED', 'PAUSED', 'RESUMED', 'RUNNING', 'SLEEPING']],
    ['service_broker', 'col-FrequencyType', ['1', '2', '3']],
    ['primentra', 'col-ScheduleType', ['interval', 'daily', 'weekly', 'monthly']],
    ['cron', 'col-active', ['true', 'false']],
  ]) {
    const other = await open(`/simulate?dialect=${dialect}`);
    assert.deepEqual(await other.page.locator(`select#${id} option`).evaluateAll((os) => os.map((o) => o.value)), values, dialect);
    await other.context.close();
  }
});

test('a zone change keeps "runs after" the same instant, and the zone shows beside it', async () => {
  const { page, context } = await open('/simulate?dialect=agent&tz=UTC&after=2026-11-22T07:00:30&count=3');
  const zone = () => page.locator('[data-testid="after-zone"]').innerText();
  assert.equal(await zone(), 'UTC');
  assert.match(await page.locator('label[for="sim-after"]').innerText(), /Runs after .*UTC/);
  await page.locator('#sim-tz').fill('America/New_York');
  await page.locator('#sim-tz').blur();
  // 07:00:30 UTC is 02:00:30 in New York (EST).
  await page.waitForFunction(() => document.querySelector('#sim-after').value === '2026-11-22T02:00:30');
  assert.equal(await zone(), 'America/New_York');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('after') === '2026-11-22T02:00:30');
  // The daily 02:00 run that instant precedes: 2026-11-23 02:00 New York, 07:00 UTC.
  assert.equal((await runs(page))[0], '2026-11-23T02:00:00');
  // A zone whose rules are fetched: the same instant is 12:45:30 in Kathmandu (UTC+5:45).
  await page.locator('#sim-tz').fill('Asia/Kathmandu');
  await page.locator('#sim-tz').blur();
  await page.waitForFunction(() => document.querySelector('#sim-after').value === '2026-11-22T12:45:30');
  assert.equal(await zone(), 'Asia/Kathmandu');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'simulate-zone.png'), fullPage: true });
  await context.close();
});

test("a MySQL event's TIME_ZONE takes every zone the zone box takes (one list), and a name no zone has is refused", async () => {
  const { page, context } = await open('/simulate?dialect=mysql_event&tz=UTC&after=2026-11-22T07:00:00&count=3');
  const zone = page.locator('#col-TIME_ZONE');
  await zone.fill('Europe/Berlin');
  // STARTS 2026-01-01 02:00:00 in Berlin (CET, UTC+1): 01:00 UTC each day.
  await page.waitForFunction(() => document.querySelector('#next-runs time')?.getAttribute('datetime') === '2026-11-23T01:00:00');
  assert.doesNotMatch(await diagnostics(page), /TIME_ZONE/, 'taken, as the zone box takes it');
  assert.ok(await page.locator('datalist#zones option[value="Europe/Berlin"]').count() === 1, 'a zone the box offers');
  await zone.fill('Europe/Berln');
  await page.waitForFunction(() => document.querySelector('#schedule-diagnostics').innerText.includes('TIME_ZONE'));
  assert.match(await diagnostics(page), /TIME_ZONE.*not SYSTEM, an IANA time zone \(Europe\/Berlin\) or an offset/s);
  assert.doesNotMatch(await diagnostics(page), /this build does not have/);
  assert.ok(await page.locator('#sim-copy').isDisabled(), 'nothing to copy');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'simulate-mysql-zone.png'), fullPage: true });
  await context.close();
});

test('the zone box applies as you type, without leaving the field', async () => {
  const { page, context } = await open('/simulate?dialect=agent&tz=UTC&after=2026-11-22T07:00:00&count=3');
  const box = page.locator('#sim-tz');
  await box.fill('');
  await box.pressSequentially('Asia/Kathmandu');
  // Still in the field: the runs already follow (daily 02:00 in Kathmandu is 20:15 UTC).
  await page.waitForFunction(() => document.querySelector('[data-testid="after-zone"]')?.innerText === 'Asia/Kathmandu');
  await page.waitForFunction(() => document.querySelector('#next-runs .utc')?.textContent.includes('20:15:00'));
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'sim-tz', 'the field never lost focus');
  assert.equal(await page.locator('[data-testid="zone-error"], #sim-zone-error').first().innerText(), '', 'no error while typing');
  await context.close();
});

test("a job's schedules are told apart, the edited one marked; the 7-day chart keeps frequent runs apart or says how many it merged", async (t) => {
  const { page, context } = await open('/jobs?days=7&show=all');
  // A demo job with two schedules or more.
  const href = await page.locator('[data-testid="job-row"]').evaluateAll((rows) => rows
    .filter((r) => r.querySelectorAll('.schedule').length >= 2)
    .map((r) => r.querySelector('a.job-link')?.getAttribute('href'))[0] ?? null);
  if (!href) {
    await context.close();
    t.skip('the demo has no job with two schedules');
    return;
  }
  const u = new URL(href, base);
  const sim = `/simulate?instance=${encodeURIComponent(u.searchParams.get('instance') ?? '')}&job=${encodeURIComponent(decodeURIComponent(u.pathname.split('/')[2]))}`;
  for (const [width, height] of [[1440, 900], [390, 844]]) {
    const other = await open(sim, { width, height });
    const chips = other.page.locator('[data-testid="sim-schedules"] [data-testid="sim-schedule"]');
    const n = await chips.count();
    assert.ok(n >= 2, `each schedule its own link (${n})`);
    const current = await chips.evaluateAll((as) => as.filter((a) => a.getAttribute('aria-current') === 'page').map((a) => a.innerText.trim()));
    assert.equal(current.length, 1, 'one marked as edited');
    assert.match(current[0], /^Editing: /, 'in words too');
    const boxes = await chips.evaluateAll((as) => as.map((a) => a.getBoundingClientRect()).map((r) => [r.left, r.right, r.top, r.bottom]));
    for (let i = 1; i < boxes.length; i++) {
      const [a, b] = [boxes[i - 1], boxes[i]];
      assert.ok(b[0] >= a[1] + 2 || b[2] >= a[3], `apart, not run together: ${JSON.stringify(boxes)}`);
    }
    await other.page.screenshot({ path: path.join(RESULTS_DIR, `simulate-schedules-${width}.png`) });
    await other.context.close();
  }
  await context.close();
});

test('on the desk, the 7-day chart of a 30-minute job says how many runs it drew as one band', async () => {
  const { page, context } = await simulatorOf('IndexOptimize - USER_DATABASES');
  await page.setViewportSize({ width: 1440, height: 900 });
  // Every 30 minutes, every day.
  await page.locator('#sim-occurs').selectOption('4');
  await page.locator('#sim-days').fill('1');
  await page.locator('#sim-every').check();
  await page.locator('#sim-unit').selectOption('4');
  await page.locator('#sim-every-n').fill('30');
  await page.waitForFunction(() => document.querySelector('[data-testid="impact-merged"]'));
  assert.match(await page.locator('[data-testid="impact-merged"]').innerText(), /Runs less than \d+ min apart are drawn as one paler band at this scale: \d+ runs in \d+ band\(s\)/);
  // Drawn apart, every bar of a lane ends before the next begins.
  const overlaps = await page.locator('svg.imp-axis').evaluate((svg) => {
    const bars = [...svg.querySelectorAll('rect.imp-proposed, rect.imp-current')].map((r) => [r.getAttribute('class'), +r.getAttribute('x'), +r.getAttribute('width'), r.getAttribute('y')]);
    let bad = 0;
    for (let i = 1; i < bars.length; i++) if (bars[i][0] === bars[i - 1][0] && bars[i][3] === bars[i - 1][3] && bars[i - 1][1] + bars[i - 1][2] >= bars[i][1]) bad++;
    return bad;
  });
  assert.equal(overlaps, 0, 'no two bars of a lane touch');
  await page.locator('svg.imp-axis').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(RESULTS_DIR, 'simulate-chart-7d.png') });
  // One day draws them apart: no band.
  await page.locator('#sim-impact-days').fill('1');
  await page.waitForFunction(() => !document.querySelector('[data-testid="impact-merged"]'));
  await page.screenshot({ path: path.join(RESULTS_DIR, 'simulate-chart-1d.png') });
  await context.close();
});

test("the impact summary's counts are its lists' lengths; refusals grouped; the neighbours drawn (desk and phone, light and dark)", async () => {
  const seenOf = (page) => page.evaluate(() => {
    const count = (what) => +document.querySelector(`[data-testid="impact-summary"] [data-count="${what}"]`).textContent;
    const items = (id) => [...document.querySelectorAll(`ul[data-testid="${id}"] li:not(.muted)`)];
    const out = {};
    for (const id of ['created', 'created-possible', 'removed', 'removed-possible']) out[id] = [count(id), items(id).length];
    out.refused = [count('refused'), items('refused').reduce((n, li) => n + +li.dataset.runs, 0), items('refused').length];
    out.neighbours = [...document.querySelectorAll('svg.imp-axis g.imp-neighbour > title')].map((t) => t.textContent);
    return out;
  });
  const agrees = (seen) => {
    for (const id of ['created', 'created-possible', 'removed', 'removed-possible']) {
      assert.equal(seen[id][0], seen[id][1], `${id}: the summary counts ${seen[id][0]}, the list shows ${seen[id][1]}`);
    }
    assert.equal(seen.refused[0], seen.refused[1], `refusals: the summary counts ${seen.refused[0]}, the list's lines ${seen.refused[1]}`);
  };
  for (const [width, height, colorScheme] of [[1440, 900, 'light'], [390, 844, 'dark'], [1440, 900, 'dark'], [390, 844, 'light']]) {
    const { page, context } = await simulatorOf('IndexOptimize - USER_DATABASES');
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme });
    // Sunday 03:00 → 01:00, on top of the weekly full backup: the backup is drawn beside it.
    await page.locator('#sim-at').fill('01:00:00');
    await page.waitForFunction(() => document.querySelector('[data-testid="impact-summary"] [data-count="created"]')?.textContent !== '0');
    let seen = await seenOf(page);
    agrees(seen);
    assert.ok(seen.neighbours.includes('DatabaseBackup - USER_DATABASES - FULL'), `the overlapped job drawn: ${seen.neighbours}`);
    await page.locator('svg.imp-axis').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(RESULTS_DIR, `simulate-neighbours-${width}-${colorScheme}.png`) });
    // Every 30 minutes, every day: longer than its runs allow.
    await page.locator('#sim-occurs').selectOption('4');
    await page.locator('#sim-days').fill('1');
    await page.locator('#sim-every').check();
    await page.locator('#sim-unit').selectOption('4');
    await page.locator('#sim-every-n').fill('30');
    await page.waitForFunction(() => document.querySelector('[data-testid="impact-summary"] [data-count="refused"]')?.textContent !== '0');
    seen = await seenOf(page);
    agrees(seen);
    assert.ok(seen.refused[2] < seen.refused[0], `grouped: ${seen.refused[2]} lines for ${seen.refused[0]} refusals`);
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(scroll <= 0, `no sideways scroll at ${width} px: ${scroll}`);
    await page.locator('[data-testid="impact-summary"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(RESULTS_DIR, `simulate-summary-${width}-${colorScheme}.png`) });
    await context.close();
  }
});

test('every control has a label and the keyboard reaches each one', async () => {
  for (const dialect of ['agent', 'cron', 'mysql_event', 'job_table', 'service_broker', 'primentra']) {
    const { page, context } = await open(`/simulate?dialect=${dialect}`);
    const controls = await page.locator('.simulator').locator('input, select, textarea, button').evaluateAll((els) => els
      .filter((e) => e.offsetParent !== null && !e.disabled)
      .map((e) => ({ id: e.id, group: e.type === 'radio' ? e.name : null, label: e.labels?.length ? e.labels[0].innerText.trim() : (e.getAttribute('aria-label') || (e.tagName === 'BUTTON' ? e.innerText.trim() : '')) })));
    assert.ok(controls.length >= 3, `${dialect}: controls`);
    const unlabelled = controls.filter((c) => !c.label);
    assert.deepEqual(unlabelled, [], `${dialect}: every control has a label`);
    // Tab from the page's start through every control.
    await page.locator('body').focus();
    const reached = new Set();
    for (let i = 0; i < controls.length + 40; i += 1) {
      await page.keyboard.press('Tab');
      const id = await page.evaluate(() => document.activeElement?.id || document.activeElement?.innerText?.trim());
      if (id) reached.add(id);
    }
    // A radio group is one stop (its arrow keys move within it), as browsers do.
    const groupReached = (g) => controls.some((c) => c.group === g && reached.has(c.id));
    const missing = controls.filter((c) => !reached.has(c.id || c.label) && !(c.group && groupReached(c.group))).map((c) => c.id || c.label);
    assert.deepEqual(missing, [], `${dialect}: reachable by Tab`);
    if (dialect === 'agent' || dialect === 'cron') await page.screenshot({ path: path.join(RESULTS_DIR, `simulate-${dialect}.png`), fullPage: true });
    await context.close();
  }
});

test('time per keystroke: 1,000 edits of the row, each to its new next runs (performance.now)', async () => {
  const { page, context } = await open('/simulate?dialect=agent&tz=America%2FNew_York&after=2026-11-22T07:00:00&count=10');
  const ms = await page.evaluate(async () => {
    const box = document.querySelector('#schedule-json');
    const list = document.querySelector('#next-runs');
    const row = JSON.parse(box.value);
    const times = [];
    for (let i = 0; i < 1000; i += 1) {
      const h = i % 24; const m = (i * 7) % 60;
      row.active_start_time = h * 10000 + m * 100 + (i % 2);
      const done = new Promise((resolve) => {
        const obs = new MutationObserver(() => { obs.disconnect(); resolve(performance.now()); });
        obs.observe(list, { subtree: true, childList: true, attributes: true, characterData: true });
      });
      const t0 = performance.now();
      box.value = JSON.stringify(row);
      box.dispatchEvent(new Event('input', { bubbles: true }));
      times.push((await done) - t0);
    }
    times.sort((a, b) => a - b);
    return { median: times[500], p95: times[950], mean: times.reduce((a, b) => a + b, 0) / times.length };
  });
  console.log(`# per keystroke (parse row, 10 next runs, descriptions, diagnostics, DOM): median ${ms.median.toFixed(3)} ms, p95 ${ms.p95.toFixed(3)} ms, mean ${ms.mean.toFixed(3)} ms`);
  assert.ok(Number.isFinite(ms.median));
  await context.close();
});

test('the simulator fits a phone (390 px): no sideways scroll, every dialect', async () => {
  for (const dialect of ['agent', 'cron', 'primentra']) {
    const { page, context } = await open(`/simulate?dialect=${dialect}`, { width: 390, height: 844 });
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${dialect}: ${width} px wide at 390`);
    if (dialect === 'agent') await page.screenshot({ path: path.join(RESULTS_DIR, 'phone-simulate.png'), fullPage: true });
    await context.close();
  }
});

test('no page errors or console errors', () => {
  assert.deepEqual(problems, []);
});
