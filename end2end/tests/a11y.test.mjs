// Accessibility: axe-core (from npm) runs in every page, light and dark, at a desk (1280 px) and
// on a phone (390 px, touch), with every <details>
// opened (the acknowledge forms, collapsed misses), and no `serious` or `critical` violation may
// be found. Each violation is printed with its rule, what it means, and the elements (selector,
// HTML, axe's own summary); a table of every finding (all impacts) per page and rule goes to
// test-results/a11y.txt. Each page also runs under its Content-Security-Policy with nothing
// blocked (Chromium reports a blocked script or request on the console).
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/a11y.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import {
  BASE_URL, CHROMIUM, CHROMIUM_ARGS, DEFAULT_BASE_URL, RESULTS_DIR, SUNDIAL_BIN,
} from '../config.mjs';
import { startSundial } from './server.mjs';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** What fails the test; `moderate` and `minor` are reported in a11y.txt only. */
const FAILING = ['serious', 'critical'];
const THEMES = ['light', 'dark'];

let base = BASE_URL || DEFAULT_BASE_URL;
let server = null;
let browser = null;
const findings = []; // { page, theme, rule, impact, nodes }

before(async () => {
  if (!BASE_URL && SUNDIAL_BIN) {
    server = await startSundial(SUNDIAL_BIN);
    base = server.url;
  }
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
});

after(async () => {
  writeReport();
  await browser?.close();
  await server?.stop();
});

/** The sizes every page is checked at: a desk, and a phone (its header folds into Menu). */
const SIZES = {
  desk: { viewport: { width: 1280, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
};

/** A context whose theme cookie is set the way the header's toggle sets it: POST /prefs. */
async function themed(theme, size = 'desk') {
  const context = await browser.newContext({ ...SIZES[size], colorScheme: theme });
  context.setDefaultTimeout(30_000);
  const res = await context.request.post(`${base}/prefs`, { form: { theme, back: '/' }, maxRedirects: 0 });
  assert.equal(res.status(), 303, `POST /prefs theme=${theme}`);
  return context;
}

/** The pages to check: every route in app/src/lib.rs, with real ids taken from the demo. */
async function pages() {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/jobs?days=7`);
  const job = await page.locator('[data-testid="job-row"] a.job-link').first().getAttribute('href');
  const triage = await (await context.request.get(`${base}/api/triage`)).json();
  // A job's timeline at a moment, and an instance-wide problem's page (an unreachable
  // instance's jobs page is its error state), as triage links them.
  const deep = triage.problems.find((p) => p.job_id != null)?.link;
  const wide = (triage.problems.find((p) => p.kind === 'unreachable') ?? triage.problems.find((p) => p.job_id == null))?.link;
  await context.close();
  assert.ok(job?.startsWith('/jobs/'), `a job's page from the jobs list (${job})`);
  return [
    ['/', 200],
    ['/jobs?days=30&show=problems', 200],
    [job, 200],
    ...(deep ? [[deep, 200]] : []),
    // An unreachable instance's page says so with 503; it is a page all the same.
    ...(wide ? [[wide, [200, 503]]] : []),
    ['/fleet', 200],
    ['/triage', 200],
    ['/triage?ack_error=the%20problem%20resolved%20meanwhile', 200],
    ['/log', 200],
    ['/simulate', 200],
    ['/timeline', 200],
    ['/calendar', 200],
    ['/calendar?span=week&at=2026-11-23&instance=pg-analytics', 200],
    ['/maintenance', 200],
    ['/find?q=back', 200],
    ['/signin?error=wrong&next=%2Ffleet', 200],
    ['/no-such-page', 404],
  ];
}

/** One line per element: where, what, and axe's summary of how to fix it. */
function describe(v) {
  const nodes = v.nodes.map((n) => {
    const summary = (n.failureSummary ?? '').split('\n').map((l) => l.trim()).filter(Boolean).join(' / ');
    return `      ${n.target.join(' ')}\n        ${n.html.replace(/\s+/g, ' ').slice(0, 200)}\n        ${summary}`;
  });
  return `  [${v.impact}] ${v.id}: ${v.help} (${v.nodes.length} element${v.nodes.length === 1 ? '' : 's'})\n    ${v.helpUrl}\n${nodes.join('\n')}`;
}

function writeReport() {
  const lines = ['page\ttheme\trule\timpact\telements\twhere'];
  for (const f of findings) lines.push(`${f.page}\t${f.theme}\t${f.rule}\t${f.impact}\t${f.nodes}\t${f.targets}`);
  fs.writeFileSync(path.join(RESULTS_DIR, 'a11y.txt'), `${lines.join('\n')}\n`);
}

test('axe finds no serious or critical violation on any page, light or dark, at a desk or on a phone', async (t) => {
  const routes = await pages();
  for (const [size, theme] of Object.keys(SIZES).flatMap((s) => THEMES.map((th) => [s, th]))) {
    const context = await themed(theme, size);
    for (const [url, status] of routes) {
      await t.test(`${url} (${theme}, ${size})`, async () => {
        const page = await context.newPage();
        // The page's Content-Security-Policy blocks nothing it needs (hydration, islands, WASM).
        const blocked = [];
        page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) blocked.push(m.text()); });
        const res = await page.goto(`${base}${url}`);
        assert.ok([status].flat().includes(res.status()), `${url}: HTTP ${res.status()}, expected ${status}`);
        await page.locator('body[data-hydrated="true"]').waitFor();
        // The page as a reader sees it: never faded (a class a server-side transition left on).
        assert.equal(await page.locator('.pending').count(), 0, `${url} is rendered faded`);
        assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), theme, 'the theme cookie holds');
        // What a reader can open, axe checks too.
        await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
        await page.evaluate(AXE_SOURCE);
        const result = await page.evaluate(() => window.axe.run(document, {
          resultTypes: ['violations'],
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
        }));
        for (const v of result.violations) {
          findings.push({
            page: `${url} (${size})`, theme, rule: v.id, impact: v.impact, nodes: v.nodes.length,
            targets: v.nodes.map((n) => n.target.join(' ')).join(', '),
          });
        }
        const bad = result.violations.filter((v) => FAILING.includes(v.impact));
        await page.close();
        assert.deepEqual(blocked, [], `the policy blocked something on ${url}`);
        assert.ok(bad.length === 0,
          `${bad.length} serious or critical violation(s) on ${url} (${theme} theme, ${size}):\n${bad.map(describe).join('\n')}`);
      });
    }
    await context.close();
  }
});
