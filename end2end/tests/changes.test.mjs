// The history of each job's definition, as the DBA asking "who moved the backup, and when?"
// meets it in the demo, at 390 × 844 (a phone) and 1440 × 900, light and dark: the job page's
// "Changes" says the backup's schedule before → after, when Sundial saw it and the scheduler's
// own time, with a mark on the chart at that moment; the log's `changed` lines say each of the
// demo's changes; the page's rows are the API's (`/api/changes`). Nothing scrolls sideways on
// a phone. Screenshots: test-results/changes-*.png.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/changes.test.mjs
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
  page.screenshot({ path: path.join(RESULTS_DIR, `changes-${what}-${look.name}.png`) });

for (const look of LOOKS) {
  test(`the moved backup on its job page and the log's changed lines (${look.name})`, async () => {
    const { page, context, errors } = await openIn(browser, base, look, '/log?instance=SQLPROD01&kind=changed');
    const api = await (await context.request.get(`${base}/api/changes?instance=SQLPROD01`)).json();
    assert.deepEqual(api.changes.map((c) => c.change), ['added', 'enabled', 'schedule'], 'the demo plants three');
    const moved = api.changes[2];

    // The log: one `changed` line for each, saying what changed.
    const log = await page.locator('main').innerText();
    assert.match(log, new RegExp(`Schedule changed: ${moved.before} → ${moved.after}`));
    assert.match(log, /Enabled changed: true → false/);
    assert.match(log, /Job added/);
    await noSidewaysScroll(page, '/log?kind=changed');
    await shot(page, 'log', look);

    // The job page: "Changes", before → after, and the mark on the chart.
    await page.goto(`${base}/jobs/${encodeURIComponent(moved.job_id)}?instance=SQLPROD01&days=7`);
    await page.locator('body[data-hydrated="true"]').waitFor();
    const rows = page.locator('[data-testid="change-row"]');
    assert.equal(await rows.count(), 1);
    assert.equal(await rows.first().getAttribute('data-kind'), 'schedule');
    const row = await rows.first().innerText();
    assert.ok(row.includes(moved.before) && row.includes(moved.after), row);
    assert.equal(await rows.first().locator('time').count(), 2, 'seen and modified, each a zoned time');
    assert.equal(
      await rows.first().locator('time').first().getAttribute('datetime').then((d) => new Date(d).toISOString()),
      new Date(moved.seen).toISOString(),
    );
    const mark = page.locator('[data-testid="change-mark"]');
    assert.equal(await mark.count(), 1);
    assert.match(await mark.getAttribute('title'), /Schedule changed/);
    await noSidewaysScroll(page, 'the job page');
    await page.locator('[data-testid="timeline-chart"]').scrollIntoViewIfNeeded();
    await shot(page, 'chart', look);
    await page.locator('[data-testid="changes"]').scrollIntoViewIfNeeded();
    await shot(page, 'job', look);
    assert.deepEqual(errors, []);
    await context.close();
  });
}
