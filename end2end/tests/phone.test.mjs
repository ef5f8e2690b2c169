// Sundial on a phone and at a desk: every page at 390 × 844 (a phone: isMobile, hasTouch) and
// 1440 × 900, light and dark, never wider than the screen; on the phone, a header of at most
// 130 px and every control at least 44 × 44 CSS px (WCAG 2.5.5); the maintenance form in one
// column a finger can reach; the skip link past the header; the instance timeline's failed run
// wide enough to tap, its overlaps told apart from the outcome colours, and "6 h" keeping now
// in view. Screenshots of every page, both sizes, both schemes: test-results/phone-*.png.
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/phone.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
  BASE_URL, CHROMIUM, CHROMIUM_ARGS, DEFAULT_BASE_URL, DEMO_NOW, RESULTS_DIR, SUNDIAL_BIN,
} from '../config.mjs';
import { startSundial } from './server.mjs';

const NOW = Date.parse(DEMO_NOW);
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const DESK = { viewport: { width: 1440, height: 900 } };
const SIZES = { 390: PHONE, 1440: DESK };

let base = BASE_URL || DEFAULT_BASE_URL;
let server = null;
let browser = null;
let pages = [];
const problems = [];

before(async () => {
  if (!BASE_URL && SUNDIAL_BIN) {
    server = await startSundial(SUNDIAL_BIN);
    base = server.url;
  }
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
  // Every page a reader meets, with a real job taken from the demo.
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/jobs?days=7`);
  const job = await page.locator('[data-testid="job-row"] a.job-link').first().getAttribute('href');
  const name = (await page.locator('[data-testid="job-row"] a.job-link').first().textContent()).trim();
  await context.close();
  pages = [
    ['fleet', '/fleet'],
    ['triage', '/triage?show=all'],
    ['jobs', '/jobs?days=7'],
    ['job', job],
    ['instance-timeline', '/timeline'],
    ['log', '/log?days=7'],
    ['simulate', '/simulate'],
    ['maintenance', '/maintenance'],
    ['find', `/find?q=${encodeURIComponent(name.slice(0, 4))}`],
  ];
});

after(async () => {
  await browser?.close();
  await server?.stop();
  assert.deepEqual(problems, [], 'no page error');
});

async function open(size, scheme, url) {
  const context = await browser.newContext({ ...SIZES[size], colorScheme: scheme });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  const res = await page.goto(`${base}${url}`);
  assert.equal(res.status(), 200, url);
  await page.locator('body[data-hydrated="true"]').waitFor();
  return { page, context };
}

/** Every visible control (a, button, input, select, summary) smaller than 44 × 44 CSS px.
 *  Two kinds are excused, and only these:
 *  - a link inside a sentence (WCAG 2.5.8's inline exception): its line's height bounds it,
 *    and padding it to 44 px would pull the sentence's lines apart;
 *  - the instance timeline's runs and expected runs (SVG links, as wide as their time): a tap
 *    anywhere on a row is taken by the chart to the nearest of them, so the row is the target. */
function smallControls(page) {
  return page.evaluate(() => {
    const out = [];
    const inSentence = (el) => {
      if (getComputedStyle(el).display !== 'inline') return false;
      let block = el.parentElement;
      while (block && getComputedStyle(block).display.startsWith('inline')) block = block.parentElement;
      if (!block) return false;
      const own = el.textContent.trim().length;
      return block.textContent.replace(/\s+/g, ' ').trim().length > own + 24;
    };
    for (const el of document.querySelectorAll('a[href], button, input:not([type="hidden"]), select, summary, textarea')) {
      if (el.closest('svg')) continue;
      if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: false })) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.bottom + scrollY < 0 || r.right + scrollX < 0) continue; // moved off-page (the skip link until focused)
      if (el.classList.contains('visually-hidden')) continue;
      if (r.width >= 43.5 && r.height >= 43.5) continue;
      if (el.tagName === 'A' && inSentence(el)) continue;
      const cls = el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
      const text = (el.textContent || el.value || el.getAttribute('aria-label') || '').replace(/\s+/g, ' ').trim().slice(0, 30);
      out.push(`${el.tagName.toLowerCase()}${cls} "${text}" ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    return out;
  });
}

for (const size of [390, 1440]) {
  for (const scheme of ['light', 'dark']) {
    test(`every page at ${size} px, ${scheme}: no wider than the screen${size === 390 ? ', a short header, 44 px targets' : ''}`, async () => {
      const failures = [];
      let small = 0;
      for (const [name, url] of pages) {
        const { page, context } = await open(size, scheme, url);
        await page.screenshot({ path: path.join(RESULTS_DIR, `phone-${name}-${size}-${scheme}.png`) });
        const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
        if (scroll > inner) failures.push(`${name}: the page is ${scroll} px wide on a ${inner} px screen`);
        if (size === 390) {
          const header = await page.locator('header.topbar').evaluate((h) => h.getBoundingClientRect().height);
          console.log(`${name} ${scheme}: header ${Math.round(header)} px`);
          if (header > 130) failures.push(`${name}: the header is ${Math.round(header)} px tall`);
          const offenders = await smallControls(page);
          small += offenders.length;
          if (offenders.length) failures.push(`${name}: ${offenders.length} controls under 44 × 44:\n    ${offenders.join('\n    ')}`);
        }
        await context.close();
      }
      if (size === 390) console.log(`${scheme}: ${small} controls under 44 × 44 across ${pages.length} pages`);
      assert.deepEqual(failures, [], failures.join('\n'));
    });
  }
}

test('on a phone the maintenance form is one column on screen, and a tap on Name focuses it', async () => {
  const { page, context } = await open(390, 'light', '/triage?show=all');
  const add = page.locator('.window-add > summary');
  await add.scrollIntoViewIfNeeded();
  await add.tap();
  const form = page.locator('[data-testid="window-add-form"]');
  await form.waitFor();
  const boxes = await form.locator('input:not([type="hidden"]), select, textarea, button').evaluateAll((els) => els.map((el) => {
    const r = el.getBoundingClientRect();
    return { name: el.name || el.textContent.trim(), left: r.left, right: r.right, height: r.height, width: r.width };
  }));
  assert.ok(boxes.length >= 3, `the form's fields: ${JSON.stringify(boxes)}`);
  for (const b of boxes) {
    assert.ok(b.left >= 0 && b.right <= 390, `${b.name} inside the screen: ${Math.round(b.left)}–${Math.round(b.right)}`);
    assert.ok(b.height >= 44 && b.width >= 44, `${b.name} at least 44 × 44: ${Math.round(b.width)} × ${Math.round(b.height)}`);
  }
  const nameField = form.locator('input[name="name"]');
  await nameField.scrollIntoViewIfNeeded();
  await nameField.tap();
  assert.equal(await nameField.evaluate((el) => el === document.activeElement), true, 'a tap on Name focuses it');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'phone-maintenance-form-390.png') });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'the page stays the screen\'s width');
  await context.close();
});

test('the skip link moves focus past the header, to the page\'s own content', async () => {
  const { page, context } = await open(1440, 'light', '/jobs?days=7');
  assert.equal(await page.locator('main#content header, main#content .topbar').count(), 0, 'the header is outside <main>');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.className), 'skip-link', 'the first tab stop');
  await page.keyboard.press('Enter');
  const at = await page.evaluate(() => {
    const a = document.activeElement;
    return { id: a.id, inHeader: Boolean(a.closest('header')) };
  });
  assert.equal(at.id, 'content', 'focus on the page\'s content');
  await page.keyboard.press('Tab');
  const next = await page.evaluate(() => {
    const a = document.activeElement;
    return { inHeader: Boolean(a.closest('header, .topbar')), inMain: Boolean(a.closest('main')), text: a.textContent.trim().slice(0, 40) };
  });
  assert.equal(next.inHeader, false, `the next tab stop is past the header: "${next.text}"`);
  assert.equal(next.inMain, true, `the next tab stop is in the page's content: "${next.text}"`);
  await context.close();
});

/** An sRGB colour as [r, g, b] (computed colours are rgb()/rgba() or color(srgb …)). */
function rgb(c) {
  const m = c.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)/);
  if (m) return m.slice(1, 4).map(Number);
  const s = c.match(/color\(srgb ([\d.]+) ([\d.]+) ([\d.]+)/);
  if (s) return s.slice(1, 4).map((v) => Number(v) * 255);
  throw new Error(`colour ${c}`);
}
const distance = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

for (const scheme of ['light', 'dark']) {
  test(`the instance timeline on a phone, ${scheme}: a failed run 8 px wide to tap, overlaps apart from outcomes, touch words`, async () => {
    const { page, context } = await open(390, scheme, '/timeline');
    await page.locator('#itl-root[data-ready]').waitFor();
    // The narrowest failed run in view: the width a tap finds it across, at its middle.
    const widths = await page.locator('[data-testid="run-bar"].failed').evaluateAll((bars) => bars.map((bar) => {
      bar.scrollIntoView({ block: 'center' });
      const link = bar.closest('a');
      const r = bar.getBoundingClientRect();
      const plot = bar.closest('svg').getBoundingClientRect();
      const mid = r.left + r.width / 2;
      if (mid < plot.left + 6 || mid > plot.right - 6) return null; // not in view
      const y = r.top + r.height / 2;
      let hits = 0;
      for (let x = Math.floor(mid) - 10; x <= Math.ceil(mid) + 10; x += 0.5) {
        if (document.elementFromPoint(x, y)?.closest('a') === link) hits += 0.5;
      }
      return hits;
    }));
    const shown = widths.filter((w) => w !== null);
    assert.ok(shown.length > 0, 'a failed run in the default view');
    assert.ok(Math.min(...shown) >= 8, `every failed run in view is at least 8 px wide to a tap: ${shown}`);
    // Overlap: a mark of its own, never the colours of outcomes (crashed, failed).
    const colours = await page.evaluate(() => {
      const probe = document.createElement('span');
      document.querySelector('.itl').append(probe);
      const of = (v) => { probe.style.color = `var(${v})`; return getComputedStyle(probe).color; };
      const out = { crashed: of('--crashed'), failed: of('--failed') };
      probe.remove();
      const ov = document.querySelector('.itl-ovh');
      const cs = ov && getComputedStyle(ov);
      out.overlap = cs ? [cs.stroke, cs.fill].filter((c) => c && c !== 'none') : [];
      const over = document.querySelector('.itl-conc-over');
      if (over) out.overlap.push(getComputedStyle(over).fill);
      return out;
    });
    assert.ok(colours.overlap.length > 0, 'overlaps are drawn');
    for (const c of colours.overlap) {
      for (const k of ['crashed', 'failed']) {
        assert.ok(distance(rgb(c), rgb(colours[k])) > 100, `overlap's ${c} is far from ${k}'s ${colours[k]}`);
      }
    }
    // Touch words on a touch screen: no keys, no wheel, no hover.
    const hint = await page.locator('.itl-hint').evaluate((p) => p.innerText);
    assert.doesNotMatch(hint, /\bkeys?\b|wheel|hover|mouse/i, hint);
    assert.match(hint, /drag|swipe/i, hint);
    await page.screenshot({ path: path.join(RESULTS_DIR, `phone-instance-timeline-chart-390-${scheme}.png`) });
    await context.close();
  });
}

test('"6 h" and the zoom buttons keep now in view', async () => {
  const { page, context } = await open(1440, 'light', '/timeline');
  await page.locator('#itl-root[data-ready]').waitFor();
  // Without JavaScript: where each link goes.
  for (const sel of ['[data-span="21600000"]', '[data-span="3600000"]', '[data-testid="itl-in"]']) {
    const href = await page.locator(sel).getAttribute('href');
    const u = new URL(href, base);
    const [from, to] = [Date.parse(u.searchParams.get('from')), Date.parse(u.searchParams.get('to'))];
    assert.ok(from <= NOW && NOW <= to, `${sel} → ${u.searchParams.get('from')} – ${u.searchParams.get('to')} holds now ${DEMO_NOW}`);
  }
  // With it: the island's view after a click on "6 h".
  await page.locator('[data-span="21600000"]').click();
  await page.waitForURL((u) => Date.parse(u.searchParams.get('to')) - Date.parse(u.searchParams.get('from')) === 6 * 3600e3);
  const u = new URL(page.url());
  const [from, to] = [Date.parse(u.searchParams.get('from')), Date.parse(u.searchParams.get('to'))];
  assert.ok(from <= NOW && NOW <= to, `6 h: ${u.searchParams.get('from')} – ${u.searchParams.get('to')} holds now`);
  await context.close();
});
