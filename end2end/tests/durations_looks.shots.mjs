// Screenshots of the job page's durations (seasonal baselines) in the four looks, to look at:
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node tests/durations_looks.shots.mjs
import path from 'node:path';
import { RESULTS_DIR } from '../config.mjs';
import { LOOKS, noSidewaysScroll, openIn, sundialAndBrowser } from './server.mjs';

const { base, browser, stop } = await sundialAndBrowser();
try {
  const jobs = await (await fetch(`${base}/api/jobs?instance=SQLPROD01`)).json();
  const list = jobs.jobs ?? jobs;
  const job = list.find((j) => /ETL|Nightly|Load/i.test(j.name)) ?? list[0];
  for (const look of LOOKS) {
    const { page, context } = await openIn(browser, base, look, `/jobs/${encodeURIComponent(job.id)}?days=30&instance=SQLPROD01`);
    const section = page.locator('[data-testid="durations"]');
    await section.scrollIntoViewIfNeeded();
    await noSidewaysScroll(page, look.name);
    await section.screenshot({ path: path.join(RESULTS_DIR, `durations-${look.name}.png`) });
    console.log(look.name, await page.locator('[data-testid="durations-baseline"]').innerText());
    await context.close();
  }
} finally {
  await stop();
}
