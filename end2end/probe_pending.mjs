import { sundialAndBrowser } from './tests/server.mjs';
const { base, browser, stop } = await sundialAndBrowser();
try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const reqs = [];
  page.on('request', (r) => reqs.push(`${Date.now()} REQ ${r.method()} ${r.url()}`));
  page.on('requestfinished', (r) => reqs.push(`${Date.now()} DONE ${r.url()}`));
  page.on('requestfailed', (r) => reqs.push(`${Date.now()} FAIL ${r.url()} ${r.failure()?.errorText}`));
  page.on('console', (m) => reqs.push(`${Date.now()} CONSOLE ${m.type()} ${m.text()}`));
  const url = `${base}/jobs/789527AD-BF1B-476A-BB67-946845EB5B06?days=7&at=2026-11-22T02:30:00Z&instance=SQLEU01#moment`;
  await page.goto(url);
  await page.locator('body[data-hydrated="true"]').waitFor();
  for (let i = 0; i < 20; i++) {
    const p = await page.evaluate(() => [!!document.querySelector('.pending'), location.href]);
    console.log(i, p);
    await page.waitForTimeout(250);
  }
  console.log(reqs.filter(r => !r.includes('.wasm') ).join('\n'));
} finally { await stop(); }
