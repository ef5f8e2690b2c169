// What to do about a miss (issue 42): on the demo, the failed run of "Sync - Customers to CRM"
// (SQLEU01) and the missed runs of "rollup-events-hourly" (pg-analytics, pg_cron) show the
// statement that runs the job now, in the scheduler's words, with what it does and does not do:
// on the job page and, folded, on triage's card. The statement is selectable whole (one click
// selects it all) and fits a phone. At 390 × 844 (a phone) and 1440 × 900, light and dark.
// Screenshots: test-results/run-now-*.png.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/run_now.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { RESULTS_DIR } from '../config.mjs';
import { sundialAndBrowser, LOOKS, openIn, noSidewaysScroll } from './server.mjs';


const WHOLE = "EXEC msdb.dbo.sp_start_job @job_name = N'Sync - Customers to CRM';";
const AT_STEP = "EXEC msdb.dbo.sp_start_job @job_name = N'Sync - Customers to CRM', @step_name = N'Push to CRM';";
const PG_CRON = 'SET ROLE "etl";\nCALL analytics.rollup_events_hourly();\nRESET ROLE;';

let base = '';
let browser = null;
let stop = async () => {};

before(async () => {
  ({ base, browser, stop } = await sundialAndBrowser());
});

after(async () => stop());

const open = (look, url) => openIn(browser, base, look, url);

for (const look of LOOKS) {
  test(`the job page says how to run a failed job now, and triage's cards too (${look.name})`, async () => {
    // The job page: the section, then the failed line's own statement at its step.
    const { page, context, errors } = await open(look, '/jobs?days=7&instance=SQLEU01');
    await page.locator('[data-testid="job-row"]', { hasText: 'Sync - Customers to CRM' }).locator('a.job-link').click();
    await page.waitForURL((u) => u.pathname.startsWith('/jobs/'));
    await page.locator('body[data-hydrated="true"]').waitFor();
    const section = page.locator('section[data-testid="run-now"]');
    assert.equal(await section.locator('[data-testid="run-now-statement"]').innerText(), WHOLE);
    assert.match(await section.innerText(), /Sundial never runs it: copy it and run it yourself\. .*not the missed run/s);
    // One click selects the whole statement.
    await section.locator('[data-testid="run-now-statement"] code').click();
    assert.equal(await page.evaluate(() => String(window.getSelection()).trim()), WHOLE);
    const line = page.locator('[data-testid="timeline-table"] details[data-testid="run-now"]').first();
    await line.locator('summary').click();
    assert.equal(await line.locator('[data-testid="run-now-statement"]').innerText(), AT_STEP);
    await noSidewaysScroll(page, 'the job page');
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(RESULTS_DIR, `run-now-job-${look.name}.png`) });

    // Triage: the failed card's statement at the step; the missed pg_cron job's command.
    await page.goto(`${base}/triage`);
    await page.locator('body[data-hydrated="true"]').waitFor();
    const failed = page.locator('[data-testid="problem"][data-kind="failed"]', { hasText: 'Sync - Customers to CRM' });
    await failed.locator('[data-testid="run-now"] summary').click();
    assert.equal(await failed.locator('[data-testid="run-now-statement"]').innerText(), AT_STEP);
    const missed = page.locator('[data-testid="problem"][data-kind="missed"]', { hasText: 'rollup-events-hourly' });
    await missed.locator('[data-testid="run-now"] summary').click();
    assert.ok((await missed.locator('[data-testid="run-now-statement"]').innerText()).endsWith(PG_CRON));
    await noSidewaysScroll(page, 'triage');
    await failed.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(RESULTS_DIR, `run-now-triage-${look.name}.png`) });
    assert.deepEqual(errors, []);
    await context.close();
  });
}
