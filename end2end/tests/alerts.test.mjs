// Alerts, end to end: `sundial serve` over a fleet file (the demo fleet's, as `sundial demo`
// writes it beside its files, served as of the demo's fixed now) with two webhooks: one received here, in node, and one whose port is closed. The
// delivered alert's link, opened in Chromium, shows the problem's evidence: the job's timeline
// holding that moment. The failing target is retried while pages answer, and its URL (a
// secret) is in no output of the server, no page and no metric.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/alerts.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
  CHROMIUM, CHROMIUM_ARGS, DEMO_NOW, REPO_DIR, RESULTS_DIR, SUNDIAL_BIN,
} from '../config.mjs';
import { freePort } from './server.mjs';

const SECRET = 'T0000-E2E-SECRET-WEBHOOK-PATH';

let dir = null;
let child = null;
let output = '';
const outputWaiters = [];
let base = '';
let receiver = null;
const received = [];
const receivedWaiters = [];
let browser = null;
const problems = [];

/** Resolves with the first `list` item `pred` accepts, now or when it arrives. */
function waitIn(list, waiters, pred, what) {
  const found = list.find(pred);
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${what} within 90 s:\n${output}`)), 90_000);
    waiters.push({ pred, resolve: (x) => { clearTimeout(timer); resolve(x); } });
  });
}

function deliver(list, waiters, item) {
  list.push(item);
  for (let i = waiters.length - 1; i >= 0; i--) {
    if (waiters[i].pred(item)) {
      waiters[i].resolve(item);
      waiters.splice(i, 1);
    }
  }
}

/** The server's output so far, once `re` matches it `count` times (never a sleep). */
function outputMatches(re, count) {
  const pred = () => (output.match(new RegExp(re.source, 'g')) ?? []).length >= count;
  return waitIn(pred() ? [true] : [], outputWaiters, pred, `${count}× ${re} in the server's output`);
}

function onOutput(chunk) {
  output += String(chunk).replace(/\x1b\[[0-9;]*m/g, '');
  for (let i = outputWaiters.length - 1; i >= 0; i--) {
    if (outputWaiters[i].pred()) {
      outputWaiters[i].resolve(true);
      outputWaiters.splice(i, 1);
    }
  }
}

before(async () => {
  if (!SUNDIAL_BIN) return;
  const exe = path.resolve(process.cwd(), SUNDIAL_BIN);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sundial-alerts-'));
  const db = path.join(dir, 'demo.sqlite');
  execFileSync(exe, ['demo', '--out', db, '--now', DEMO_NOW], { stdio: 'ignore' });

  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      res.writeHead(200).end('ok');
      try {
        deliver(received, receivedWaiters, { path: req.url, body: JSON.parse(body) });
      } catch (e) {
        problems.push(`the webhook posted something not JSON (${e.message}): ${body}`);
      }
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${receiver.address().port}/hook`;
  const closed = await freePort();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // The demo's own fleet file, with where links point (a top-level key: first) and the
  // webhooks (tables: last).
  const fleet = path.join(dir, 'fleet.toml');
  fs.writeFileSync(fleet, [
    `public_url = ${JSON.stringify(base)}`,
    fs.readFileSync(path.join(dir, 'demo.fleet.toml'), 'utf8'),
    '[[alert]]', 'name = "oncall"', 'url_env = "SUNDIAL_E2E_HOOK"', 'format = "json"', 'grace = "0"',
    '[[alert]]', 'name = "down"', 'url_env = "SUNDIAL_E2E_DOWN"', 'format = "slack"', 'grace = "0"',
    '',
  ].join('\n'));

  child = spawn(exe, ['serve', '--config', fleet, '--addr', `127.0.0.1:${port}`, '--now', DEMO_NOW], {
    cwd: REPO_DIR,
    env: {
      ...process.env,
      LEPTOS_SITE_ROOT: process.env.LEPTOS_SITE_ROOT || path.join(REPO_DIR, 'target', 'site'),
      LEPTOS_OUTPUT_NAME: 'sundial',
      NO_COLOR: '1',
      SUNDIAL_E2E_HOOK: hook,
      SUNDIAL_E2E_DOWN: `http://127.0.0.1:${closed}/services/${SECRET}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const exited = new Promise((_, reject) => child.on('exit', (code) => reject(new Error(`sundial exited (${code}):\n${output}`))));
  await Promise.race([outputMatches(/Sundial is serving/, 1), exited]);
  exited.catch(() => {});
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
});

after(async () => {
  await browser?.close();
  if (child && child.exitCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await gone;
  }
  receiver?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(problems, [], 'no page error, nothing malformed');
});

/** A job's alert the demo plants: missed runs or failures. */
const jobAlert = (r) => r.body.type === 'alert'
  && r.body.problems.some((p) => p.job && ['missed', 'failed', 'no_success'].includes(p.kind));

test('a delivered alert\'s link opens the job\'s timeline holding the moment, with the evidence', async (t) => {
  if (!SUNDIAL_BIN) return t.skip('needs SUNDIAL_BIN (it starts sundial with a fleet file)');
  const alert = await waitIn(received, receivedWaiters, jobAlert, 'alert of a job');
  assert.equal(alert.path, '/hook');
  const p = alert.body.problems.find((x) => x.job && ['missed', 'failed', 'no_success'].includes(x.kind));
  // The kind in the subject, the evidence and an absolute link to the moment.
  assert.ok(alert.body.subject.includes(`[${p.subject}] ${p.instance} / ${p.job}`)
    || alert.body.problems.length > 1, alert.body.subject);
  assert.ok(p.evidence.length > 10, p.evidence);
  const link = new URL(p.link);
  assert.equal(link.origin, base, `the link is absolute, on public_url: ${p.link}`);
  assert.match(link.pathname, /^\/jobs\/[^/]+$/);
  assert.equal(link.searchParams.get('instance'), p.instance);
  const at = link.searchParams.get('at');
  assert.match(at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, p.link);

  for (const colorScheme of ['light', 'dark']) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme });
    const page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
    const res = await page.goto(p.link);
    assert.equal(res.status(), 200, p.link);
    await page.locator('body[data-hydrated="true"]').waitFor();
    assert.ok((await page.locator('[data-testid="job-name"]').innerText()).includes(p.job), `the timeline of ${p.job}`);
    // The evidence: the tile of its kind counts it; the chart marks the moment and the row
    // nearest to it is the missed or failed run the alert is about.
    const tile = p.kind === 'missed' ? 'missed-count' : 'failed-count';
    const counted = parseInt(await page.locator(`[data-testid="${tile}"]`).innerText(), 10);
    assert.ok(counted > 0, `${tile} counts the ${p.kind} run(s): ${counted}`);
    assert.equal(new URL(page.url()).searchParams.get('at'), at, 'the moment stays in the URL');
    const marker = page.locator('[data-testid="at-marker"]');
    assert.equal(Number(await marker.getAttribute('data-at')), Date.parse(at), 'the chart marks the moment');
    const row = page.locator('#moment');
    const moments = await row.locator('time[datetime]')
      .evaluateAll((els) => els.map((e) => Date.parse(e.getAttribute('datetime'))));
    assert.ok(moments.includes(Date.parse(at)), `the row nearest the moment is at ${at}: ${moments}`);
    const words = p.kind === 'missed' ? /missed/i : /fail|crash|abandon/i;
    assert.match(await row.innerText(), words, `the row says ${p.kind}`);
    await page.screenshot({ path: path.join(RESULTS_DIR, `alert-link-${colorScheme}.png`), fullPage: false });
    await context.close();
  }
});

test('a failing target is retried while pages answer, and its URL is never shown', async (t) => {
  if (!SUNDIAL_BIN) return t.skip('needs SUNDIAL_BIN (it starts sundial with a fleet file)');
  await outputMatches(/delivery failed; will retry alert=down/, 3);
  for (const page of ['/triage', '/metrics', '/api/triage', '/fleet']) {
    const res = await fetch(`${base}${page}`);
    assert.equal(res.status, 200, page);
    const body = await res.text();
    assert.ok(!body.includes(SECRET), `${page} shows no webhook URL`);
    if (page === '/metrics') assert.match(body, /^sundial_problems\{kind="missed",severity="error"\} \d+$/m);
  }
  await outputMatches(/delivery failed; will retry alert=down/, 4);
  assert.match(output, /alert delivered alert=oncall/);
  assert.ok(!output.includes(SECRET), 'the server\'s output never holds the webhook URL');
});
