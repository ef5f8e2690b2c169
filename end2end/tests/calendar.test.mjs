// The fleet calendar in the browser, at a desk and on a phone, light and dark: the demo's day
// with its runs (their outcome's colour), now, and the runs expected ahead (hollow, dashed);
// the next day; a tap on an expected run opening its job at that moment; no sideways scroll
// and 44 px targets on a phone. Screenshots: test-results/calendar-*.png.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/calendar.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { RESULTS_DIR } from '../config.mjs';
import { sundialAndBrowser } from './server.mjs';

let base;
let browser;
let stop;

before(async () => {
  ({ base, browser, stop } = await sundialAndBrowser());
});
after(async () => stop());

const SIZES = {
  desk: { viewport: { width: 1440, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
};
const BG = { light: 'rgb(244, 245, 247)', dark: 'rgb(13, 17, 23)' };

for (const size of Object.keys(SIZES)) {
  for (const theme of ['light', 'dark']) {
    test(`the calendar of a day, ${size}, ${theme}`, async () => {
      const context = await browser.newContext({ ...SIZES[size], colorScheme: theme });
      context.setDefaultTimeout(30_000);
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const res = await page.goto(`${base}/calendar?span=day&at=2026-11-22&instance=SQLPROD01`);
      assert.equal(res.status(), 200);
      await page.locator('body[data-hydrated="true"]').waitFor();
      assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), BG[theme]);

      const runs = page.locator('a[data-testid="cal-entry"][data-kind="run"]');
      const ahead = page.locator('a[data-testid="cal-entry"][data-kind="expected"]');
      assert.ok((await runs.count()) > 10, 'the day\'s runs');
      assert.ok((await ahead.count()) > 5, 'the runs expected ahead');
      await assert.doesNotReject(page.locator('[data-testid="cal-now"]').waitFor({ state: 'visible' }));
      // Runs in their outcome's colour; expected runs hollow and dashed.
      const ok = page.locator('a.cal-e.o-succeeded .cal-dot').first();
      const okColour = await ok.evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.equal(okColour, theme === 'light' ? 'rgb(21, 128, 61)' : 'rgb(63, 185, 80)');
      const hollow = await ahead.first().evaluate((e) => [getComputedStyle(e).borderTopStyle, getComputedStyle(e.querySelector('.cal-dot')).backgroundColor]);
      assert.deepEqual(hollow, ['dashed', 'rgba(0, 0, 0, 0)']);
      // Every run listed comes before now, every expected run after it, in the day's order.
      const order = await page.locator('[data-testid="cal-hour"]').evaluateAll((hours) => hours.flatMap((h) => [...h.querySelectorAll('[data-testid="cal-now"], a[data-testid="cal-entry"]')].map((e) => e.dataset.kind ?? 'now')));
      const now = order.indexOf('now');
      assert.ok(now > 0 && !order.slice(0, now).includes('expected') && !order.slice(now + 1).includes('run'), order.join(' '));

      // Every entry drawn whole (no other chart's marker class shrinking it to a dot).
      const squeezed = await page.locator('a.cal-e:visible').evaluateAll((els) => els
        .map((e) => [e.textContent.trim().slice(0, 30), e.getBoundingClientRect(), e.querySelector('.cal-j').getBoundingClientRect()])
        .filter(([, r, j]) => r.height < 18 || j.width < 20)
        .map(([t, r]) => `${t} ${Math.round(r.width)}x${Math.round(r.height)}`));
      assert.deepEqual(squeezed, []);
      // No sideways scroll; on a phone, every entry and control a 44 px target.
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(wide <= 0, `the page scrolls sideways by ${wide}px`);
      if (size === 'phone') {
        const small = await page.locator('a.cal-e:visible, .cal-nav a, .cal-pick select, .cal-pick button').evaluateAll((els) => els
          .map((e) => [e.textContent.trim().slice(0, 30), e.getBoundingClientRect()])
          .filter(([, r]) => r.height < 44 || r.width < 44)
          .map(([t, r]) => `${t} ${Math.round(r.width)}x${Math.round(r.height)}`));
        assert.deepEqual(small, []);
      }
      await page.screenshot({ path: path.join(RESULTS_DIR, `calendar-${size}-${theme}.png`) });
      await page.locator('[data-testid="cal-now"]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(RESULTS_DIR, `calendar-${size}-${theme}-now.png`) });

      // The next day: only runs expected, none run.
      await page.locator('[data-testid="cal-next"]').click();
      await page.waitForURL(/at=2026-11-23/);
      assert.equal(await runs.count(), 0);
      assert.ok((await ahead.count()) > 10);
      // A tap or a click on an expected run opens its job at that moment.
      const first = ahead.first();
      const job = await first.getAttribute('data-job');
      await (size === 'phone' ? first.tap() : first.click());
      await page.waitForURL((u) => u.pathname.startsWith('/jobs/') && u.searchParams.has('at'));
      assert.ok(decodeURIComponent(page.url()).includes(`/jobs/${job}`), page.url());
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
}

test('a week of the fleet, with the Sunday maintenance planned ahead', async () => {
  const context = await browser.newContext({ ...SIZES.desk, colorScheme: 'light' });
  const page = await context.newPage();
  const res = await page.goto(`${base}/calendar?span=week&at=2026-11-23&instance=pg-analytics`);
  assert.equal(res.status(), 200);
  assert.equal(await page.locator('[data-testid="cal-day"]').count(), 7);
  assert.equal(await page.locator('[data-testid="cal-maint-list"] li[data-state="planned"]').count(), 1);
  assert.ok((await page.locator('.cal-hour.cal-maint').count()) >= 2);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'calendar-week-desk-light.png'), fullPage: false });
  // The Calendar link of the header, from another page.
  await page.goto(`${base}/fleet`);
  await page.locator('[data-testid="nav-calendar"]').first().click();
  await page.waitForURL(/\/calendar/);
  assert.ok((await page.locator('a[data-testid="cal-entry"]').count()) > 0);
  await context.close();
});
