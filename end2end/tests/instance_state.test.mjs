// An instance's own state, as the three users meet it, at 390 × 844 (a phone) and 1440 × 900,
// light and dark: the fleet table's badge says what the instance is doing now (SQLEU01's Agent
// starts nothing, shop-mariadb's event scheduler is stopped); every page of shop-mariadb opens
// on the banner of the stop, with when it went down at the latest and its last sign of life;
// pg-batch's log has the line of the night its agent went down, at its last sign of life; and
// the zombie's evidence on triage opens the instance timeline at the span's start, its band
// drawn. Screenshots: test-results/instance-state-*.png.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/instance_state.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { RESULTS_DIR } from '../config.mjs';
import { sundialAndBrowser, LOOKS, openIn } from './server.mjs';


let base = '';
let browser = null;
let stop = async () => {};

before(async () => {
  ({ base, browser, stop } = await sundialAndBrowser());
});

after(async () => stop());

const open = (look, url) => openIn(browser, base, look, url);

const shot = (page, what, look) =>
  page.screenshot({ path: path.join(RESULTS_DIR, `instance-state-${what}-${look.name}.png`) });

for (const look of LOOKS) {
  test(`the fleet says what each instance is doing now (${look.name})`, async () => {
    const { page, context, errors } = await open(look, '/fleet');
    const state = (name) => page.locator(`[data-testid="instance-row"][data-instance="${name}"] [data-testid="instance-state"]`);
    assert.equal(await state('SQLEU01').getAttribute('data-state'), 'zombie');
    assert.equal((await state('SQLEU01').textContent()).trim(), 'Agent starts nothing');
    assert.equal(await state('shop-mariadb').getAttribute('data-state'), 'scheduler_stopped');
    assert.equal((await state('shop-mariadb').textContent()).trim(), 'event scheduler stopped');
    assert.equal(await state('SQLAPAC01').getAttribute('data-state'), 'unreachable');
    assert.equal(await state('pg-batch').getAttribute('data-state'), 'reading', 'its agent came back');
    await state('shop-mariadb').scrollIntoViewIfNeeded();
    await shot(page, 'fleet', look);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test(`every page of a stopped scheduler opens on its banner (${look.name})`, async () => {
    for (const url of ['/jobs?instance=shop-mariadb&days=1', '/log?instance=shop-mariadb&days=1', '/timeline?instance=shop-mariadb']) {
      const { page, context, errors } = await open(look, url);
      const banner = page.locator('[data-testid="stopped-banner"][data-ongoing="true"]');
      assert.equal(await banner.count(), 1, url);
      const text = (await banner.innerText()).replace(/\s+/g, ' ');
      assert.match(text, /The event scheduler is stopped: down by 2026-11-22 \d\d:\d\d:\d\d UTC at the latest \(last seen 2026-11-22 \d\d:\d\d:\d\d UTC\), still stopped now/, url);
      assert.match(text, /\d+ runs missed across 2 jobs\./, url);
      // In sight when the page opens, on a phone too.
      const box = await banner.boundingBox();
      assert.ok(box && box.y < look.options.viewport.height, `${url}: the banner at ${box?.y}`);
      if (url.startsWith('/jobs')) await shot(page, 'stopped', look);
      assert.deepEqual(errors, [], url);
      await context.close();
    }
  });

  test(`the log marks the night pgAgent went down, at its last sign of life (${look.name})`, async () => {
    const { page, context, errors } = await open(look, '/log?instance=pg-batch&days=7&problems=1');
    const stop = page.locator('[data-testid="log-line"][data-kind="scheduler-stop"]');
    assert.equal(await stop.count(), 1);
    const text = (await stop.innerText()).replace(/\s+/g, ' ');
    assert.match(text, /pgAgent stop/i);
    assert.match(text, /the scheduler stopped: down by .* at the latest; last seen /);
    await stop.scrollIntoViewIfNeeded();
    await shot(page, 'log', look);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test(`a zombie's evidence opens the instance timeline at its start (${look.name})`, async () => {
    const { page, context, errors } = await open(look, '/triage');
    const card = page.locator('[data-testid="problem"][data-kind="zombie"]');
    const link = card.locator('[data-testid="evidence-link"]');
    const href = await link.getAttribute('href');
    assert.match(href, /^\/timeline\?from=2026-11-22T04:\d\d:\d\dZ&to=2026-11-22T10:\d\d:\d\dZ&instance=SQLEU01$/);
    await link.click();
    await page.waitForURL(/\/timeline\?/);
    await page.locator('body[data-hydrated="true"]').waitFor();
    assert.ok(await page.locator('[data-testid="zombie-banner"]').count() >= 1, 'the banner of the zombie');
    assert.ok(await page.locator('rect.itl-zombie').count() >= 1, 'its band drawn');
    await shot(page, 'timeline', look);
    assert.deepEqual(errors, []);
    await context.close();
  });
}
