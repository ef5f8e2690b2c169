// Deadlines ([[deadline]]), as the demo has one: "Ledger ready for finance", SQLEU01's
// "ETL - Load GL Ledger" by 06:00 London time on weekdays. Its load has failed every night since
// Thursday, so Friday's deadline was missed and nothing has succeeded since: triage lists one
// `deadline_missed` problem (the API's), and the job's page says the deadline and its verdict near
// the top and draws a dashed line at each weekday's 06:00 of its week, the latest labelled with
// its name.
// At 390 × 844 (a phone) and 1440 × 900, light and dark; nothing scrolls sideways.
// Screenshots: test-results/deadlines-*.png.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/deadlines.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { RESULTS_DIR } from '../config.mjs';
import { sundialAndBrowser, LOOKS, openIn, noSidewaysScroll } from './server.mjs';

let base = '';
let browser = null;
let stop = async () => {};

before(async () => {
  ({ base, browser, stop } = await sundialAndBrowser());
});

after(async () => stop());

const shot = (page, what, look) =>
  page.screenshot({ path: path.join(RESULTS_DIR, `deadlines-${what}-${look.name}.png`) });

for (const look of LOOKS) {
  test(`the demo's missed deadline on triage and on the ledger's chart (${look.name})`, async () => {
    const { page, context, errors } = await openIn(browser, base, look, '/triage');
    const triage = await (await context.request.get(`${base}/api/triage`)).json();
    const missed = triage.problems.filter((p) => p.kind === 'deadline_missed');
    assert.equal(missed.length, 1, JSON.stringify(missed));
    const [p] = missed;
    assert.deepEqual([p.instance, p.job, p.severity], ['SQLEU01', 'ETL - Load GL Ledger', 'error']);
    // Missed Thursday's and Friday's 06:00 in London (GMT): two in a row, since Thursday's.
    assert.match(p.since, /^2026-11-19T06:00:00(Z|\+00:00)$/);
    assert.equal(p.count, 2);

    // Triage: the row says the kind in words, the deadline and its evidence.
    const row = page.locator('[data-testid="triage"] > [data-testid="problems"] [data-testid="problem"][data-kind="deadline_missed"]');
    assert.equal(await row.count(), 1);
    assert.equal(await row.getAttribute('data-severity'), 'error');
    const text = await row.innerText();
    assert.match(text, /deadline missed/i);
    assert.match(text, /Ledger ready for finance.+weekdays by 06:00 Europe\/London.+was due by/s);
    assert.match(text, /the last run, .+ failed; next run due/s);
    await row.scrollIntoViewIfNeeded();
    await noSidewaysScroll(page, '/triage');
    await shot(page, 'triage', look);

    // The job's page (its week): the deadline in words with Friday's verdict, and a dashed line
    // at 06:00 on each weekday of the week, the latest Friday's.
    await page.goto(`${base}/jobs/${encodeURIComponent(p.job_id)}?instance=SQLEU01`);
    const note = page.locator('[data-testid="deadline-note"]');
    assert.equal(await note.count(), 1);
    assert.match(await note.innerText(), /^◷ ?Deadline: Ledger ready for finance, weekdays by 06:00 Europe\/London · missed at /);
    assert.equal(await note.getAttribute('data-verdict'), 'missed');
    const lines = page.locator('[data-testid="timeline-chart"] [data-testid="deadline-line"]');
    const at = await lines.evaluateAll((els) => els.map((el) => el.dataset.at));
    assert.deepEqual(at, ['2026-11-16 06:00:00', '2026-11-17 06:00:00', '2026-11-18 06:00:00', '2026-11-19 06:00:00', '2026-11-20 06:00:00']);
    // The latest is labelled with the deadline's name (labels at each would overlap); each says
    // it in its tooltip.
    assert.equal(await lines.nth(4).locator('.deadline-label').innerText(), 'Ledger ready for finance');
    assert.equal(await lines.locator('.deadline-label').count(), 1);
    assert.match(await lines.nth(0).getAttribute('title'), /^Deadline: Ledger ready for finance \(weekdays by 06:00 Europe\/London\), due 2026-11-16 06:00/);
    assert.equal(await lines.nth(4).locator('svg line').getAttribute('stroke-dasharray'), '4 3');
    await noSidewaysScroll(page, 'the job page');
    await shot(page, 'job', look);
    await page.locator('[data-testid="timeline-chart"]').screenshot({ path: path.join(RESULTS_DIR, `deadlines-chart-${look.name}.png`) });
    assert.deepEqual(errors, []);
    await context.close();
  });
}
