// The simulator's risks ahead: above its list of runs, the edited schedule's risks over the 90
// days after "runs after", whatever the count of runs asked. A daily 02:30 schedule in
// America/New_York, from 2027-03-01 with the default ten runs (none of them on 2027-03-14), says
// what SQL Server Agent does with the 2027-03-14 02:30 that does not exist; an edit moves it; a
// zone without DST has none. Screenshots on a desk and a phone, light and dark.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/simulate_risks.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { RESULTS_DIR } from '../config.mjs';
import { sundialAndBrowser } from './server.mjs';

let base = '';
let browser = null;
let stop = async () => {};
const problems = [];

before(async () => {
  ({ base, browser, stop } = await sundialAndBrowser());
});

after(async () => stop());

const SIZES = {
  desk: { viewport: { width: 1440, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
};

async function open(url, size = 'desk', colorScheme = 'light') {
  const context = await browser.newContext({ ...SIZES[size], colorScheme });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console on ${page.url()}: ${m.text()}`); });
  const res = await page.goto(`${base}${url}`);
  assert.equal(res.status(), 200, url);
  await page.locator('body[data-hydrated="true"]').waitFor();
  await page.locator('#sim-root[data-ready="true"]').waitFor();
  return { page, context };
}

const NEW_YORK = '/simulate?dialect=agent&tz=America%2FNew_York&after=2027-03-01T00:00:00';
const GAP = 'On 2027-03-14, 02:30 does not exist in America/New_York (the clock jumps from 02:00 to 03:00): SQL Server Agent runs it at 03:00, when the gap ends.';

test('a daily 02:30 in New York names the 2027-03-14 DST gap above its runs, with the default ten runs', async () => {
  const { page, context } = await open(NEW_YORK);
  // The example row runs daily at 02:00: on the gap night 02:00 does not exist either.
  await page.locator('#sim-at').fill('02:30:00');
  await page.waitForFunction(() => document.querySelector('#next-runs time')?.getAttribute('datetime') === '2027-03-01T02:30:00');
  const runs = await page.locator('#next-runs time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')));
  assert.equal(runs.length, 10, 'the default count');
  assert.ok(runs.every((r) => !r.startsWith('2027-03-14')), `no listed run on the DST night: ${runs}`);
  const risk = page.locator('#sim-risks [data-kind="dst_gap"]');
  await risk.waitFor();
  assert.equal(await risk.innerText(), `DST gap: ${GAP}`);
  // The risks come before the runs.
  const above = await page.evaluate(() => {
    const r = document.querySelector('#sim-risks');
    const n = document.querySelector('#next-runs');
    return Boolean(r.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING);
  });
  assert.ok(above, 'the risks are above the list of runs');
  // A zone without DST: none, and said so.
  await page.locator('#sim-tz').fill('UTC');
  await page.locator('#sim-tz').press('Enter');
  await page.waitForFunction(() => document.querySelector('#sim-risks').innerText.includes('None in the 90 days'));
  assert.equal(await page.locator('#sim-risks [data-kind]').count(), 0);
  await context.close();
});

test('the risks read on a desk and a phone, light and dark', async () => {
  for (const size of ['desk', 'phone']) {
    for (const scheme of ['light', 'dark']) {
      const { page, context } = await open(NEW_YORK, size, scheme);
      await page.locator('#sim-at').fill('02:30:00');
      await page.locator('#sim-risks [data-kind="dst_gap"]').waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= SIZES[size].viewport.width, `${size}: ${width} px wide`);
      await page.locator('#sim-risks-h').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(RESULTS_DIR, `simulate-risks-${size}-${scheme}.png`) });
      await context.close();
    }
  }
});

test('no page errors or console errors', () => {
  assert.deepEqual(problems, []);
});
