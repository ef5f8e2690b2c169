// Every time carries its zone, in sentences too (issue 26): the reader in Tokyo presses the
// zone switch and sees triage's evidence sentence, and a job page's explanation of its missed
// runs, change zone with every other time on the page: the instance's zone, UTC, the browser's
// (Asia/Tokyo, UTC+9). The instants stay (each <time>'s datetime); the words around them stay.
//
// Rows are picked by what they hold (a sentence with times in a zone other than UTC), never by
// a job's name.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/zones.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
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
  assert.deepEqual(problems, [], 'no page error or console error');
});

/** A context in Tokyo (its own cookies: the zone choice starts at "Instance"). */
async function tokyo() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Asia/Tokyo' });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console on ${page.url()}: ${m.text()}`); });
  return { page, context };
}

async function go(page, url) {
  const res = await page.goto(`${base}${url}`);
  assert.equal(res.status(), 200, url);
  await page.locator('body[data-hydrated="true"]').waitFor();
}

/** What a sentence says: its whole text, and each time's instant, text and zone. */
function read(locator) {
  return locator.evaluate((el) => ({
    text: el.innerText.replace(/\s+/g, ' ').trim(),
    times: [...el.querySelectorAll('time')].map((t) => ({
      datetime: t.getAttribute('datetime'),
      text: t.innerText.replace(/\s+/g, ' ').trim(),
      zone: t.querySelector('.tz-off')?.innerText.trim() ?? '',
    })),
    // Text outside the <time>s: never a date-time of its own.
    bare: (() => {
      const c = el.cloneNode(true);
      c.querySelectorAll('time').forEach((t) => t.remove());
      return c.textContent;
    })(),
  }));
}

/** `instant` (RFC 3339) as wall-clock text at `offsetMin` minutes east of UTC. */
function wall(instant, offsetMin) {
  const d = new Date(Date.parse(instant) + offsetMin * 60_000);
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

/** The offset of an RFC 3339 instant's own zone, in minutes. */
function ownOffset(instant) {
  const m = instant.match(/([+-])(\d\d):(\d\d)$/);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

const LABELS = { utc: 'UTC', browser: 'UTC+9' };
const OFFSETS = { utc: 0, browser: 9 * 60 };
const DATE_TIME = /\d{4}-\d\d-\d\d[ T]\d\d:\d\d/;

/** Press the switch's button for `zone` and wait for the page it posts back to. */
async function press(page, zone) {
  const button = page.locator(`[data-testid="zone-switch"] button[data-zone="${zone}"]`).first();
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), button.click()]);
  await page.locator('body[data-hydrated="true"]').waitFor();
  assert.equal(await button.getAttribute('aria-pressed'), 'true', `${zone} is the choice now`);
}

/** Each time of `s` shown in `zone` ('instance', 'utc', 'browser'), the same instants as `was`. */
function assertZone(s, was, zone, what) {
  assert.equal(DATE_TIME.test(s.bare), false, `${what}: no date-time outside a <time>: ${s.text}`);
  assert.deepEqual(s.times.map((t) => t.datetime), was.times.map((t) => t.datetime), `${what}: the same instants`);
  for (const t of s.times) {
    const off = zone === 'instance' ? ownOffset(t.datetime) : OFFSETS[zone];
    const label = zone === 'instance' ? was.times.find((w) => w.datetime === t.datetime).zone : LABELS[zone];
    assert.equal(t.zone, label, `${what} in ${zone}: ${s.text}`);
    assert.equal(t.text, `${wall(t.datetime, off)} ${label}`, `${what} in ${zone}: ${s.text}`);
  }
}

test('triage\'s evidence sentence follows the zone switch, its zone shown', async () => {
  const { page, context } = await tokyo();
  await go(page, '/triage');
  // Triage lists many instances: under "Instance" every time on it is in one zone (the
  // instances' own when they share one, else UTC), never a mix.
  const zones = await page.locator('[data-testid="problem"] time .tz-off').allInnerTexts();
  assert.ok(zones.length > 0, 'the demo has evidence with times');
  assert.equal(new Set(zones.map((z) => z.trim())).size, 1, `one zone on the page: ${[...new Set(zones)]}`);
  const rows = page.locator('[data-testid="problem"]');
  const keys = await rows.evaluateAll((els) => els
    .filter((el) => el.querySelector('[data-testid="evidence"] time'))
    .map((el) => el.dataset.key));
  const evidence = page.locator(`[data-testid="problem"][data-key="${keys[0]}"] [data-testid="evidence"]`).first();
  const instance = await read(evidence);
  assert.ok(instance.times.length > 0);
  assertZone(instance, instance, 'instance', keys[0]);

  await press(page, 'browser');
  const browserZone = await read(evidence);
  assertZone(browserZone, instance, 'browser', keys[0]);
  assert.notEqual(browserZone.text, instance.text, 'the sentence changed zone');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'zones-triage-browser.png'), fullPage: false });

  await press(page, 'utc');
  const utc = await read(evidence);
  assertZone(utc, instance, 'utc', keys[0]);
  assert.notEqual(utc.text, browserZone.text);

  await press(page, 'instance');
  assert.deepEqual(await read(evidence), instance, 'back to the page\'s zone, word for word');
  await context.close();
});

test('a job page\'s explanation of its missed runs follows the zone switch', async () => {
  const { page, context } = await tokyo();
  // A job of an instance outside UTC whose table explains missed runs with times.
  await go(page, '/jobs?days=30');
  const hrefs = await page.locator('[data-testid="jobs-table"] a.job-link').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  let href = null;
  for (const h of hrefs) {
    const html = await (await page.request.get(`${base}${h}`)).text();
    if (/class="collapsed-misses"[\s\S]*?<summary>[\s\S]*?UTC[−+]\d[\s\S]*?<\/summary>/.test(html)) { href = h; break; }
  }
  assert.ok(href, 'a job page explains missed runs with times in its instance\'s zone');
  await go(page, href);
  const summary = page.locator('.collapsed-misses summary').first();
  const instance = await read(summary);
  assert.ok(instance.times.length >= 3, `the range and the cause's times: ${instance.text}`);
  assertZone(instance, instance, 'instance', href);

  await press(page, 'browser');
  const browserZone = await read(summary);
  assertZone(browserZone, instance, 'browser', href);
  assert.notEqual(browserZone.text, instance.text, 'the explanation changed zone');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'zones-job-browser.png'), fullPage: false });

  await press(page, 'utc');
  assertZone(await read(summary), instance, 'utc', href);
  await press(page, 'instance');
  await context.close();
});
