// Screenshots of the job page's durations (seasonal baselines) in the four looks, to look at:
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node tests/durations_looks.shots.mjs
import path from 'node:path';
import { RESULTS_DIR } from '../config.mjs';
import { LOOKS, openIn, sundialAndBrowser } from './server.mjs';

const { base, browser, stop } = await sundialAndBrowser();
try {
  // The demo's run going long: its job page names the baseline triage judged it against.
  const triage = await (await fetch(`${base}/api/triage`)).json();
  const long = triage.problems.find((p) => p.kind === 'running_long');
  const url = `/jobs/${encodeURIComponent(long.job_id)}?days=30&instance=${encodeURIComponent(long.instance)}`;
  console.log('evidence:', long.evidence);
  for (const look of LOOKS) {
    const { page, context } = await openIn(browser, base, look, url);
    const section = page.locator('[data-testid="durations"]');
    await section.scrollIntoViewIfNeeded();
    const over = await page.evaluate(() => {
      const w = document.documentElement.clientWidth;
      const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > w + 1)
        .map((e) => `${e.tagName}.${e.className}[${e.dataset.testid ?? ''}] ${Math.round(e.getBoundingClientRect().right)}`);
      return { over: document.documentElement.scrollWidth - w, wide: wide.slice(0, 5) };
    });
    if (over.over > 0) console.log(look.name, 'sideways', JSON.stringify(over));
    await section.screenshot({ path: path.join(RESULTS_DIR, `durations-${look.name}.png`) });
    console.log(look.name, await page.locator('[data-testid="durations-baseline"]').innerText());
    await context.close();
  }
} finally {
  await stop();
}
