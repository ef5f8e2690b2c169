// The browser test: the jobs list, a job's timeline with a missed run the zombie Agent
// explains, and a window switch (server-rendered pages; the islands hydrate).
//
//   cd end2end && npm ci && BASE_URL=http://127.0.0.1:3000 node --test
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test   (starts the demo itself)
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

test('the jobs page lists the instance\'s jobs', async () => {
  const page = await newPage();
  const res = await page.goto(`${base}/jobs?days=30`);
  assert.equal(res.status(), 200);
  await page.locator('[data-testid="instance"]').waitFor();
  const rows = page.locator('[data-testid="job-row"]');
  assert.ok(await rows.count() > 5, 'the demo has dozens of jobs');
  assert.ok(await page.locator('[data-testid="zombie-banner"]').count() >= 1, 'the 30-day window shows the zombie banner');
  await page.locator('body[data-hydrated="true"]').waitFor();
  await page.screenshot({ path: path.join(RESULTS_DIR, 'jobs.png') });
  await page.close();
});

test('a missed run the zombie Agent explains, then a window switch and back', async () => {
  const page = await newPage();
  await page.goto(`${base}/jobs?days=30&sort=missed&dir=desc`);
  await page.locator('[data-testid="jobs-table"]').waitFor();
  await page.locator('body[data-hydrated="true"]').waitFor();

  // A job the zombie period affects (the list says how many of its misses it explains);
  // of those, the one with the most late and skipped runs makes the richest chart.
  const rows = page.locator('[data-testid="job-row"]:not([data-missed-zombie="0"])');
  assert.ok(await rows.count() > 0, 'some job has runs missed while the Agent started nothing');
  const scores = await rows.evaluateAll((els) => els.map((e) => Number(e.dataset.late) + Number(e.dataset.skipped)));
  const row = rows.nth(scores.indexOf(Math.max(...scores)));
  assert.ok(Number(await row.getAttribute('data-missed')) > 0);
  const jobId = await row.getAttribute('data-job-id');
  await row.locator('a.job-link').click();
  await page.waitForURL((u) => u.pathname.startsWith('/jobs/') && u.searchParams.get('days') === '30');
  const chart30 = page.locator('[data-testid="timeline-chart"][data-days="30"]');
  await chart30.waitFor();

  // The zombie's missed-run marker: visible, focusable, and saying why.
  const zombie = page.locator('[data-testid="missed-marker"][data-cause="zombie"]');
  assert.ok(await zombie.count() > 0, 'the 30-day window holds the zombie period');
  await zombie.first().scrollIntoViewIfNeeded();
  assert.ok(await zombie.first().isVisible());
  const label = await zombie.first().getAttribute('aria-label');
  assert.match(label, /Missed: SQL Agent started no job between .+ and .+/);
  await zombie.first().focus();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-cause')), 'zombie');
  assert.ok(await page.locator('[data-testid="zombie-band"]').count() >= 1, 'the zombie period is shaded');
  const summary30 = await page.locator('[data-testid="chart-summary"]').textContent();
  await page.screenshot({ path: path.join(RESULTS_DIR, 'timeline.png'), fullPage: false });

  // Switch to 7 days: a link to the server-rendered page (islands: no client-side router).
  await page.locator('[data-testid="window-link"][data-days="7"]').click();
  await page.waitForURL((u) => u.pathname === `/jobs/${encodeURIComponent(jobId)}` && u.searchParams.get('days') === '7');
  await page.locator('[data-testid="timeline-chart"][data-days="7"]').waitFor();
  assert.equal(await chart30.count(), 0, 'the 30-day chart is gone');
  const summary7 = await page.locator('[data-testid="chart-summary"]').textContent();
  assert.notEqual(summary7, summary30, 'the chart shows a different window');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'timeline-7d.png') });

  // And back.
  await page.goBack();
  await page.locator('[data-testid="timeline-chart"][data-days="30"]').waitFor();
  assert.equal(await page.locator('[data-testid="chart-summary"]').textContent(), summary30, 'back shows the 30-day window again');
  await page.close();
});

test('the fleet page lists the instance, and its link opens its jobs', async () => {
  const page = await newPage();
  const res = await page.goto(`${base}/fleet`);
  assert.equal(res.status(), 200);
  // The demo is a fleet of 10 (one unreachable); SQLPROD01 is read.
  assert.equal(await page.locator('[data-testid="instance-row"]').count(), 10, 'the demo fleet');
  const row = page.locator('[data-testid="instance-row"][data-instance="SQLPROD01"]');
  assert.equal(await row.locator('[data-testid="instance-state"]').getAttribute('data-state'), 'reading');
  await page.locator('body[data-hydrated="true"]').waitFor();
  await page.screenshot({ path: path.join(RESULTS_DIR, 'fleet.png') });
  const name = await row.getAttribute('data-instance');
  await row.locator('a.job-link').click();
  await page.waitForURL((u) => u.pathname === '/jobs' && u.searchParams.get('instance') === name);
  await page.locator('[data-testid="jobs-table"]').waitFor();
  // The header names the instance: in its switch (a select) when the fleet has several.
  const shown = page.locator('[data-testid="instance"] .instance-name');
  const isSelect = (await shown.evaluate((e) => e.tagName)) === 'SELECT';
  assert.equal(isSelect ? await shown.inputValue() : (await shown.textContent()).trim(), name);
  await page.close();
});

test('the scheduler log, colour-coded, filtered to problems in the browser', async () => {
  const page = await newPage();
  await page.goto(`${base}/jobs?days=7`);
  await page.locator('body[data-hydrated="true"]').waitFor();
  await page.locator('[data-testid="nav-log"]').click();
  await page.waitForURL((u) => u.pathname === '/log' && u.searchParams.get('days') === '7');
  await page.locator('[data-testid="log-table"]').waitFor();
  assert.ok(await page.locator('[data-testid="log-line"][data-kind="succeeded"]').count() > 0);
  await page.locator('[data-testid="problems-only"]').click();
  await page.waitForURL((u) => u.searchParams.get('problems') === '1');
  await page.locator('[data-testid="log-line"]').first().waitFor();
  assert.equal(await page.locator('[data-testid="log-line"][data-kind="succeeded"]').count(), 0, 'problems only');
  assert.ok(await page.locator('[data-testid="log-line"][data-kind="failed"], [data-testid="log-line"][data-kind="missed"]').count() > 0);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'log.png') });
  await page.close();
});

test('no page errors or console errors (hydration included)', () => {
  assert.deepEqual(problems, []);
});
