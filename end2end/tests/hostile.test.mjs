// Hostile names in the browser: the demo fleet written by `sundial demo` at the demo's fixed
// now, then job names (SQL Server Agent's msdb, pg_cron, Service Broker, Primentra) and run
// messages changed with the sqlite3 shell to markup that would add an element, leave the
// <title> or the simulator's <textarea>, break out of an attribute, redirect the page (a
// <meta http-equiv=refresh>), or run script; with quotes, line breaks, the right-to-left
// override and control characters. `sundial serve --config` serves those files as they are
// (the fleet file the demo writes beside them), as of the demo's now.
//
// In Chromium, on the fleet, triage, log, jobs, instance timeline, simulator and every planted
// job's page, once its islands are live: no element the text could add exists
// (document.querySelector('[id^="pwned"]')), no <meta http-equiv>, no event handler
// attribute, no dialog opened (the payloads call alert()), no request left Sundial, the page
// is still where it was opened, and a job's page has the name, as the table holds it, in
// document.title and in its heading.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/hostile.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, DEMO_NOW, RESULTS_DIR, SUNDIAL_BIN } from '../config.mjs';
import { startSundial } from './server.mjs';

const SQLPROD = 'SQLPROD01';

/** The n-th hostile name: each kind of trouble in turn, n making its ids (`pwned-n`) unique. */
function hostile(n) {
  const kinds = [
    `<h1 id=pwned-${n}>Nightly</h1> & more`,
    `</title><meta http-equiv="refresh" content="0;url=http://evil.invalid/${n}"><h1 id=pwned-${n}>`,
    `"><img src=x id=pwned-${n} onerror=alert(${n})>`,
    `'><svg id=pwned-${n} onload=alert(${n})>'`,
    `</textarea><b id=pwned-${n}>textarea</b>`,
    `</script><script id=pwned-${n}>alert(${n})</script>`,
    `</style></noscript><i id=pwned-${n}>style</i> <!-- comment -->`,
    `line one\nline two\r\nline three <u id=pwned-${n}>`,
    `\u202Elamron txet <s id=pwned-${n}>\u202C RTL \u200Fmark`,
    `bell\u0007 esc\u001B[31m back\u0008 <em id=pwned-${n}>`,
    `&amp; &lt;b&gt; &#60;b id=pwned-${n}&#62; {{literal}} \\ \`tick\``,
  ];
  return kinds[n % kinds.length];
}

/** Planted after every run message. */
const MESSAGE = ' <h1 id=pwned-msg>msg</h1></td></tr></table></textarea></title><img src=x id=pwned-msg-img onerror=alert(0)> "double" \'single\' line\nbreak \u202Ertl\u202C bell\u0007';

/** A SQL string literal for the sqlite3 shell: quotes doubled, control characters as char(N). */
function lit(s) {
  let out = "'";
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (c < 0x20 || c === 0x7f) out += `' || char(${c}) || '`;
    else out += ch === "'" ? "''" : ch;
  }
  return `${out}'`;
}

function sqlite(file, sql) {
  return execFileSync('sqlite3', [file, sql], { encoding: 'utf8' });
}

let dir = null;
let server = null;
let base = '';
let browser = null;
let n = 0;
/** The names planted: { instance, name }. */
const planted = [];
const problems = [];

/** Give each row of `table` (by `key`) in `file` a hostile name in `column`. */
function rename(file, instance, table, key, column) {
  const keys = sqlite(file, `SELECT ${key} FROM ${table} ORDER BY ${key}`).split('\n').filter(Boolean);
  const sql = keys.map((k) => {
    const name = hostile(n++);
    planted.push({ instance, name });
    return `UPDATE ${table} SET ${column} = ${lit(name)} WHERE ${key} = ${lit(k)};`;
  });
  sqlite(file, sql.join('\n'));
}

before(async () => {
  if (!SUNDIAL_BIN) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sundial-hostile-'));
  const db = path.join(dir, 'demo.sqlite');
  execFileSync(path.resolve(process.cwd(), SUNDIAL_BIN), ['demo', '--out', db, '--now', DEMO_NOW], { stdio: 'ignore' });
  const file = (instance) => (instance === SQLPROD ? db : path.join(dir, `demo.${instance}.sqlite`));
  for (const instance of [SQLPROD, 'SQLEU01']) {
    rename(file(instance), instance, 'sysjobs', 'job_id', 'name');
    rename(file(instance), null, 'sysschedules', 'schedule_id', 'name');
    sqlite(file(instance), `UPDATE sysjobhistory SET message = COALESCE(message, '') || ${lit(MESSAGE)};`);
  }
  rename(file('pg-analytics'), 'pg-analytics', 'job', 'jobid', 'jobname');
  sqlite(file('pg-analytics'), `UPDATE job_run_details SET return_message = COALESCE(return_message, '') || ${lit(MESSAGE)};`);
  rename(file('broker-sched'), 'broker-sched', 'ScheduledJobs', 'ID', 'JobName');
  rename(file('primentra'), 'primentra', 'Entities', 'Id', 'Name');
  // The files as they are now: served from the fleet file written beside them, never
  // written again.
  server = await startSundial(SUNDIAL_BIN, { args: ['--config', path.join(dir, 'demo.fleet.toml')] });
  base = server.url;
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(problems, [], 'no dialog, no request away from Sundial, no page error');
});

/** What Chromium's `document.title` makes of a title: control characters and ASCII
 *  whitespace as one space, the ends trimmed. */
const collapsed = (s) => s.replace(/[\u0000-\u0020\u007F]+/g, ' ').trim();

/**
 * Open `url` once its islands are live; returns the page's findings: elements the text added,
 * <meta http-equiv>s, event handler attributes, the title, the heading, the URL now.
 */
const shot = new Set();
async function inspect(url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const where = () => `${url} (now ${page.url()})`;
  page.on('dialog', async (d) => {
    problems.push(`a ${d.type()} dialog opened on ${where()}: ${d.message()}`);
    await d.dismiss();
  });
  page.on('pageerror', (e) => problems.push(`page error on ${where()}: ${e.message}`));
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.origin !== base || u.pathname.endsWith('/x')) problems.push(`${where()} asked for ${r.url()}`);
  });
  const res = await page.goto(`${base}${url}`);
  assert.equal(res.status(), 200, url);
  await page.locator('body[data-hydrated="true"]').waitFor();
  if (new URL(page.url()).pathname === '/simulate') await page.locator('#sim-root[data-ready="true"]').waitFor();
  const found = await page.evaluate(() => ({
    pwned: [...document.querySelectorAll('[id^="pwned"]')].map((e) => e.outerHTML.slice(0, 200)),
    meta: [...document.querySelectorAll('meta[http-equiv]')].map((e) => e.outerHTML),
    handlers: [...document.querySelectorAll('*')].flatMap((e) => [...e.attributes]
      .filter((a) => a.name.toLowerCase().startsWith('on'))
      .map((a) => `${e.tagName}[${a.name}=${a.value}]`)),
    title: document.title,
    heading: document.querySelector('[data-testid="job-name"]')?.textContent ?? null,
    textareas: [...document.querySelectorAll('textarea')].map((t) => t.value),
    body: document.body.textContent,
  }));
  found.url = page.url();
  // One look at each kind of page as a reader sees it, planted names and all.
  const kind = new URL(found.url).pathname.split('/')[1] || 'jobs';
  if (!shot.has(kind)) {
    shot.add(kind);
    await page.screenshot({ path: path.join(RESULTS_DIR, `hostile-${kind}.png`) });
  }
  await context.close();
  assert.deepEqual(found.pwned, [], `${url}: elements the planted text added`);
  assert.deepEqual(found.meta, [], `${url}: a <meta http-equiv>`);
  assert.deepEqual(found.handlers, [], `${url}: event handler attributes`);
  assert.equal(new URL(found.url).href, new URL(`${base}${url}`).href, `${url}: the page stayed where it was opened`);
  return found;
}

async function api(p) {
  const res = await fetch(`${base}${p}`);
  assert.equal(res.status, 200, p);
  return res.json();
}

test('pages across the fleet show planted names as text', async (t) => {
  if (!SUNDIAL_BIN) return t.skip('needs SUNDIAL_BIN (it writes the demo, alters it, and serves it)');
  const pages = ['/triage?show=all', '/log?days=30', `/jobs?instance=${SQLPROD}`, `/timeline?instance=${SQLPROD}`];
  for (const p of pages) {
    const found = await inspect(p);
    assert.ok(planted.some(({ name }) => found.body.includes(name.replace(/\r\n?/g, '\n'))), `${p} shows a planted name`);
  }
  // The fleet page lists the worst ten problems only: the planted names may rank below them,
  // and it must add nothing all the same.
  await inspect('/fleet');
});

test('a job\'s page has the name in its title and heading, and adds nothing', async (t) => {
  if (!SUNDIAL_BIN) return t.skip('needs SUNDIAL_BIN');
  const instances = [...new Set(planted.map((p) => p.instance).filter(Boolean))];
  let pages = 0;
  for (const instance of instances) {
    const { jobs } = await api(`/api/instances/${encodeURIComponent(instance)}/jobs`);
    const mine = planted.filter((p) => p.instance === instance);
    for (const job of jobs) {
      const name = mine.find((p) => job.name.includes(p.name));
      if (!name) continue;
      const url = `/jobs/${encodeURIComponent(job.id)}?instance=${encodeURIComponent(instance)}`;
      const found = await inspect(url);
      assert.ok(found.title.includes(collapsed(job.name)), `${url}: the title ${JSON.stringify(found.title)} holds ${JSON.stringify(job.name)}`);
      assert.equal(found.heading?.replace(/\r\n?/g, '\n').includes(job.name.replace(/\r\n?/g, '\n')), true, `${url}: the heading ${JSON.stringify(found.heading)}`);
      pages += 1;
    }
  }
  assert.ok(pages >= 11, `every kind of trouble on a job page: ${pages} pages`);
});

test('the simulator keeps a hostile row in its textarea and adds nothing', async (t) => {
  if (!SUNDIAL_BIN) return t.skip('needs SUNDIAL_BIN');
  const row = {
    freq_type: 4,
    freq_interval: 1,
    name: '</textarea><h1 id=pwned-sim>sim</h1></title><meta http-equiv="refresh" content="0;url=http://evil.invalid/">',
    '"><img src=x id=pwned-key onerror=alert(1)>': '\u202Ertl \u0007 </script><script>alert(2)</script>',
  };
  const found = await inspect(`/simulate?row=${encodeURIComponent(JSON.stringify(row))}`);
  assert.ok(found.textareas.some((v) => {
    try { return JSON.stringify(JSON.parse(v)) === JSON.stringify(row); } catch { return false; }
  }), `the textarea holds the row: ${JSON.stringify(found.textareas)}`);
  // A planted job's own schedule (its name hostile too) and the impact on its neighbours.
  const { jobs } = await api(`/api/instances/${SQLPROD}/jobs`);
  const job = jobs.find((j) => planted.some((p) => p.instance === SQLPROD && j.name === p.name && /<h1/.test(p.name)));
  assert.ok(job, 'a planted job of SQLPROD01');
  await inspect(`/simulate?instance=${SQLPROD}&job=${encodeURIComponent(job.id)}`);
});
