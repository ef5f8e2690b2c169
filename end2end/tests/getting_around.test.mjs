// Getting around as a DBA does (issue 26): the landing page is the fleet and what is wrong, a
// job is found by name across the fleet from the header, an acknowledgement can be undone
// (the header's count follows), the job page's controls are touch-sized on a phone, and what a
// scheduler cannot tell is said where its counts are read.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/getting_around.test.mjs
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
const errors = [];

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

async function open(url, { width = 1440, height = 900, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(`${url}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`${url}: ${m.text()}`); });
  const res = await page.goto(`${base}${url}`);
  assert.equal(res.status(), 200, url);
  return { page, context };
}

const openCount = async (page) => {
  const a = page.locator('[data-testid="open-count"]');
  return { open: Number(await a.getAttribute('data-open')), acked: Number(await a.getAttribute('data-acknowledged')) };
};

test('the landing page is the fleet with what is wrong on top, not one instance\'s jobs', async () => {
  const { page, context } = await open('/');
  assert.ok(await page.locator('[data-testid="triage"]').isVisible(), 'the triage panel');
  const instances = await page.locator('[data-testid="instance-row"]').evaluateAll((rows) => rows.map((r) => r.dataset.instance));
  assert.ok(instances.length >= 5, `every instance: ${instances}`);
  assert.equal(await page.locator('[data-testid="jobs-table"]').count(), 0, 'no single instance\'s job list');
  await context.close();
});

test('the header finds a job by name across the fleet, and the result opens the job', async () => {
  const { page, context } = await open('/triage');
  const box = page.locator('[data-testid="find-box"] input[name="q"]');
  await box.fill('backup');
  await Promise.all([page.waitForURL((u) => u.pathname === '/find'), box.press('Enter')]);
  const found = page.locator('[data-testid="found-job"]');
  const n = await found.count();
  assert.ok(n >= 2, `jobs named *backup* (${n})`);
  const names = await found.evaluateAll((rows) => rows.map((r) => r.querySelector('a').textContent.toLowerCase()));
  assert.ok(names.every((t) => t.includes('backup')), `only matching names: ${names}`);
  assert.match(await page.locator('[data-testid="found-count"]').innerText(), new RegExp(`^${n} jobs? whose name holds`));
  const first = found.first().locator('a').first();
  const name = (await first.innerText()).trim();
  await Promise.all([page.waitForURL((u) => u.pathname.startsWith('/jobs/')), first.click()]);
  assert.equal((await page.locator('[data-testid="job-name"]').innerText()).split('\n')[0].trim().startsWith(name), true);
  await context.close();
});

test('an acknowledgement is undone: the problem is open again and the header counts it again', async () => {
  const { page, context } = await open('/triage');
  const before = await openCount(page);
  const li = page.locator('[data-testid="problems"] [data-testid="problem"]').filter({ has: page.locator('[data-testid="ack-form"]') }).first();
  const key = await li.getAttribute('data-key');
  await li.locator('details.ack > summary').click();
  const form = li.locator('[data-testid="ack-form"]');
  await form.getByLabel('Who').fill('e2e undo');
  await form.getByLabel('Note for the next person').fill('e2e: undone next');
  await Promise.all([page.waitForURL((u) => u.pathname === '/triage'), form.getByRole('button', { name: 'Acknowledge' }).click()]);
  const acked = await openCount(page);
  assert.deepEqual(acked, { open: before.open - 1, acked: before.acked + 1 }, 'the header says "N open · M acknowledged"');
  assert.match(await page.locator('[data-testid="open-count"]').innerText(), new RegExp(`${acked.open} open · ${acked.acked} acknowledged`));

  const moved = page.locator(`[data-testid="acknowledged"] [data-testid="problem"][data-key="${key}"]`);
  await page.locator('[data-testid="acknowledged"] > summary').click();
  await Promise.all([page.waitForURL((u) => u.pathname === '/triage'), moved.locator('[data-testid="unack"]').click()]);
  assert.equal(await page.locator(`[data-testid="problems"] [data-testid="problem"][data-key="${key}"]`).count(), 1, 'open again');
  assert.deepEqual(await openCount(page), before, 'the header counts it as open again');
  await context.close();
});

test('every control of the job page is at least 44 × 44 CSS px on a phone', async () => {
  // A failed job: its runs expand into steps, and it has the most controls.
  const { page, context } = await open('/find?q=Sync%20-%20Customers', { width: 390, height: 844 });
  await Promise.all([page.waitForURL((u) => u.pathname.startsWith('/jobs/')), page.locator('[data-testid="found-job"] a').first().click()]);
  const small = await page.locator('main, .page').first().evaluate((root) =>
    [...root.querySelectorAll('a, button, summary, select, input:not([type="hidden"]), textarea')]
      .filter((e) => e.offsetParent !== null && !e.closest('svg') && !e.closest('table'))
      .map((e) => [e.tagName, e.textContent.trim().slice(0, 30), e.getBoundingClientRect()])
      .filter(([, , r]) => r.width < 44 || r.height < 44)
      .map(([tag, text, r]) => `${tag} "${text}" ${Math.round(r.width)}×${Math.round(r.height)}`));
  assert.deepEqual(small, [], 'touch targets under 44 × 44 outside the tables and the chart');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'job-phone.png'), fullPage: false });
  await context.close();
});

test('what a scheduler cannot tell is said on the jobs list and the job page, and unknown is never 0', async () => {
  const { page, context } = await open('/jobs?instance=shop-mariadb&days=7');
  const note = page.locator('[data-testid="cannot-tell"]');
  await note.locator('summary').click();
  assert.match(await note.innerText(), /outcome and duration/);
  const job = page.locator('[data-testid="jobs-table"] tbody tr a').first();
  await Promise.all([page.waitForURL((u) => u.pathname.startsWith('/jobs/')), job.click()]);
  const tile = page.locator('[data-testid="failed-count"]');
  assert.match(await tile.innerText(), /unknown/);
  assert.ok((await tile.getAttribute('title')).length > 10, 'the reason on hover');
  assert.ok(await page.locator('[data-testid="cannot-tell"]').isVisible());
  await context.close();
});

test('no page errors or console errors', () => {
  assert.deepEqual(errors, []);
});
