// One judgment of each job, read by every view (issue 26): under a zombie Agent or an event
// scheduler that is off, no job of the instance reads OK and its next run says it will not
// happen; the header counts the fleet's open problems on every page, as triage lists them; a
// page about one instance switches to another without JavaScript. Screenshots (desk, phone,
// dark) go to test-results/.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/judgment.test.mjs
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
  const res = await page.goto(`${base}${url}`);
  assert.equal(res.status(), 200, url);
  return { page, context };
}

const PROBLEM_STATES = ['unreachable', 'scheduler_stopped', 'zombie', 'missed', 'failing', 'no_success',
  'deadline_missed', 'running_long', 'next_run_disagrees', 'stale', 'too_short'];

for (const [instance, word, shot] of [['SQLEU01', 'zombie', 'judgment-zombie'], ['shop-mariadb', 'scheduler_stopped', 'judgment-events-off']]) {
  test(`no job of ${instance} reads OK while its scheduler is ${word}`, async () => {
    for (const days of [1, 7, 30]) {
      const { page, context } = await open(`/jobs?instance=${instance}&days=${days}`);
      const rows = page.locator('[data-testid="job-row"]');
      const n = await rows.count();
      assert.ok(n > 0, `${instance} lists jobs`);
      const states = await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-state')));
      // The scheduler's state reaches every job; a worse problem of a job's own may come first.
      for (const s of states) {
        assert.ok(PROBLEM_STATES.indexOf(s) >= 0 && PROBLEM_STATES.indexOf(s) <= PROBLEM_STATES.indexOf(word),
          `${instance} ${days}d: a job reads ${s}`);
      }
      assert.ok(states.includes(word));
      const badge = rows.first().locator('[data-testid="job-state"]');
      assert.ok((await badge.getAttribute('title')).length > 10, 'the pill says why, in triage\'s words');
      // Its next expected runs will not happen while it lasts.
      const next = await page.locator('[data-testid="next-wont-run"]').count();
      const withNext = await rows.evaluateAll((rs) => rs.filter((r) => r.querySelector('time')).length);
      assert.ok(next > 0 || withNext === 0, 'the next runs say they will not happen');
      if (days === 7) {
        await page.screenshot({ path: path.join(RESULTS_DIR, `${shot}.png`), fullPage: false });
      }
      await context.close();
    }
  });
}

test('the header counts the fleet\'s open problems on every page, as triage lists them', async () => {
  const { page, context } = await open('/triage');
  const listed = await page.locator('[data-testid="problems"] > [data-testid="problem"]').count();
  const count = page.locator('[data-testid="open-count"]');
  const openNow = Number(await count.getAttribute('data-open'));
  assert.ok(openNow > 0, 'the demo has open problems');
  if (listed > 0) assert.equal(openNow, listed, 'the header counts what triage lists');
  assert.match(await count.innerText(), new RegExp(`^${openNow} open`));
  for (const url of ['/fleet', '/jobs?days=7', '/log?days=1', '/simulate', '/timeline']) {
    await page.goto(`${base}${url}`);
    assert.equal(Number(await page.locator('[data-testid="open-count"]').getAttribute('data-open')), openNow, url);
  }
  await context.close();
});

test('a page about one instance switches to another, without JavaScript', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${base}/jobs?instance=SQLPROD01&days=7`);
  // On a phone the switch is behind the header's Menu (a disclosure: no script needed).
  await page.locator('[data-testid="menu"]').click();
  const select = page.locator('[data-testid="instance-switch"] select');
  assert.equal(await select.inputValue(), 'SQLPROD01');
  await select.selectOption('pg-analytics');
  await page.locator('[data-testid="instance-switch"] button').click();
  await page.waitForURL((u) => u.searchParams.get('instance') === 'pg-analytics');
  assert.equal(new URL(page.url()).searchParams.get('days'), '7', 'the window is kept');
  await page.locator('[data-testid="menu"]').click();
  assert.equal(await page.locator('[data-testid="instance-switch"] select').inputValue(), 'pg-analytics');
  assert.ok(await page.locator('[data-testid="job-row"]').count() > 0);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'judgment-switch-phone.png') });
  // From a job's page, the switch goes to the other instance's jobs list.
  const id = await page.locator('[data-testid="job-row"]').first().getAttribute('data-job-id');
  await page.goto(`${base}/jobs/${encodeURIComponent(id)}?instance=pg-analytics`);
  await page.locator('[data-testid="menu"]').click();
  await page.locator('[data-testid="instance-switch"] select').selectOption('SQLEU01');
  await page.locator('[data-testid="instance-switch"] button').click();
  await page.waitForURL((u) => u.pathname === '/jobs' && u.searchParams.get('instance') === 'SQLEU01');
  await context.close();
  const dark = await open('/jobs?instance=SQLEU01&days=7', { colorScheme: 'dark' });
  await dark.page.screenshot({ path: path.join(RESULTS_DIR, 'judgment-zombie-dark.png') });
  await dark.context.close();
});

test('every control of a problem on triage is at least 44 × 44 CSS px on a phone', async () => {
  const { page, context } = await open('/triage', { width: 390, height: 844 });
  // Open one acknowledge form, so its fields count too.
  await page.locator('[data-testid="problem"] details.ack summary').first().click();
  const small = await page.locator('[data-testid="problem"]').evaluateAll((problems) => problems.flatMap((p) =>
    [...p.querySelectorAll('a, button, summary, select, input:not([type="hidden"]), textarea')]
      .filter((e) => e.offsetParent !== null)
      .map((e) => [e.tagName, e.textContent.trim().slice(0, 30), e.getBoundingClientRect()])
      .filter(([, , r]) => r.width < 44 || r.height < 44)
      .map(([tag, text, r]) => `${tag} "${text}" ${Math.round(r.width)}×${Math.round(r.height)}`)));
  assert.deepEqual(small, [], 'touch targets under 44 × 44');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'judgment-triage-phone.png') });
  await context.close();
});
