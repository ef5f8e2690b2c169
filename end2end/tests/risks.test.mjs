// Risks ahead, as the three users meet them, at 390 × 844 (a phone) and 1440 × 900, light and
// dark: the landing page's "next 7 days" counts the week's risks and lists the first five, each
// with its job; triage lists every one; a risk's job link opens the job's page at its "Risks
// ahead", which says the same sentence; nothing scrolls sideways on a phone and every risk's
// link is a 44 px target there. The counts are the API's (`/api/risks`): one judgment.
// Screenshots: test-results/risks-*.png.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/risks.test.mjs
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

const open = (look, url) => openIn(browser, base, look, url);

const shot = (page, what, look) =>
  page.screenshot({ path: path.join(RESULTS_DIR, `risks-${what}-${look.name}.png`) });

for (const look of LOOKS) {
  test(`the next 7 days on the landing page and triage, and a job's risks (${look.name})`, async () => {
    const { page, context, errors } = await open(look, '/');
    const week = await (await context.request.get(`${base}/api/risks?days=7`)).json();
    assert.ok(week.risks.length > 0, 'the demo has risks in the week ahead');
    const soon = page.locator('[data-testid="risks-soon"]');
    const rows = soon.locator('[data-testid="risk"]');
    assert.equal(await rows.count(), Math.min(5, week.risks.length));
    assert.match(await soon.locator('[data-testid="risks-summary"]').innerText(), new RegExp(`^${week.risks.length} risks? ahead`));
    // Each row says the API's sentence, in the API's order.
    for (let i = 0; i < await rows.count(); i += 1) {
      assert.ok((await rows.nth(i).innerText()).includes(week.risks[i].explanation), `row ${i}`);
      assert.equal(await rows.nth(i).getAttribute('data-kind'), week.risks[i].kind);
    }
    await soon.scrollIntoViewIfNeeded();
    await noSidewaysScroll(page, '/');
    if (look.phone) {
      for (const link of await soon.locator('a').all()) {
        const box = await link.boundingBox();
        assert.ok(box.height >= 44, `a link of ${box.height}px on a phone: ${await link.innerText()}`);
      }
    }
    await shot(page, 'landing', look);

    // Triage: every risk of the week.
    await page.goto(`${base}/triage#risks`);
    assert.equal(await page.locator('#risks [data-testid="risk"]').count(), week.risks.length);
    await page.locator('#risks').scrollIntoViewIfNeeded();
    await noSidewaysScroll(page, '/triage');
    await shot(page, 'triage', look);

    // The first risk's job: its page at its risks, the same sentence there.
    const first = week.risks[0];
    await page.goto(`${base}${first.link}`);
    const section = page.locator('[data-testid="job-risks"]');
    assert.ok(await section.isVisible());
    assert.ok((await section.innerText()).includes(first.explanation));
    await section.scrollIntoViewIfNeeded();
    await noSidewaysScroll(page, first.link);
    await shot(page, 'job', look);
    assert.deepEqual(errors, []);
    await context.close();
  });
}
