// Measures the instance timeline with 200 jobs over 7 days, in Debian's Chromium:
//
//   - the server's answer (time to the whole HTML, its size, the SVG elements drawn);
//   - navigation to interactive: from the navigation's start to the island attached
//     (`#itl-root[data-ready]`: zoom and pan answer from then on), with the page's own timings:
//     the browser's first navigation, then warm ones, then a new tab with the cache emptied;
//   - zoom and pan: one input per frame (keys, wheel, a pointer drag), and for each frame the
//     main thread's work (from the frame's start to a task posted in it, which runs after the
//     frame's style, layout and paint) and the interval between frames.
//
// The 200-job instance is built from the demo: `sundial demo` writes SQLPROD01's msdb-shaped
// SQLite file, its jobs are copied four more times (new ids and names, schedules and history
// with them) down to 200, and `sundial serve --config` serves the file as a fleet of one.
//
//   make build
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node bench/instance_timeline.bench.mjs
//
// Needs the sqlite3 command (Debian: apt-get install sqlite3). Prints one JSON report; it
// asserts nothing (speed goals are read, not tested: see ARCHITECTURE.md, Testing).
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, REPO_DIR, SUNDIAL_BIN } from '../config.mjs';
import { freePort } from '../tests/server.mjs';

const NOW = '2026-11-22T12:00:00Z';
const JOBS = Number(process.env.BENCH_JOBS || 200);
const RUNS = Number(process.env.BENCH_RUNS || 7);
const FRAMES = Number(process.env.BENCH_FRAMES || 120);
const INSTANCE = 'BIG200';

const bin = path.resolve(process.cwd(), SUNDIAL_BIN || '../target/release/sundial');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sundial-bench-'));

function sql(db, text) {
  return execFileSync('sqlite3', ['-batch', db, text], { encoding: 'utf8' });
}

/** The demo's SQLPROD01 file, its jobs copied until there are `JOBS` of them. */
function buildInstance() {
  const db = path.join(dir, 'big.sqlite');
  execFileSync(bin, ['demo', '--out', db, '--now', NOW], { stdio: 'ignore' });
  const jobs = Number(sql(db, 'SELECT count(*) FROM sysjobs').trim());
  const cols = (table) => sql(db, `SELECT name FROM pragma_table_info('${table}')`).trim().split('\n');
  const copies = Math.ceil(JOBS / jobs) - 1;
  const stmts = ['BEGIN'];
  for (let k = 1; k <= copies; k++) {
    const sid = 1_000_000 * k;
    const map = (table, extra = {}) => {
      const c = cols(table);
      const exprs = c.map((name) => extra[name] ?? (name === 'job_id' ? `job_id || '-${k}'` : name));
      return `INSERT INTO ${table} (${c.join(', ')}) SELECT ${exprs.join(', ')} FROM ${table} WHERE job_id NOT LIKE '%-%-%-%-%-%'`;
    };
    stmts.push(map('sysjobs', { name: `name || ' #${k}'` }));
    stmts.push(map('sysjobsteps'));
    stmts.push(map('sysjobschedules', { schedule_id: `schedule_id + ${sid}` }));
    stmts.push(map('sysjobhistory', { instance_id: `instance_id + ${sid * 100}` }));
    stmts.push(map('sysjobactivity'));
    const sc = cols('sysschedules');
    const exprs = sc.map((name) => ({ schedule_id: `schedule_id + ${sid}`, schedule_uid: `schedule_uid || '-${k}'` })[name] ?? name);
    stmts.push(`INSERT INTO sysschedules (${sc.join(', ')}) SELECT ${exprs.join(', ')} FROM sysschedules WHERE schedule_id < 1000000`);
  }
  stmts.push('COMMIT');
  sql(db, stmts.join(';\n') + ';');
  // Down to exactly JOBS: drop the last copies' surplus.
  const surplus = Number(sql(db, 'SELECT count(*) FROM sysjobs').trim()) - JOBS;
  if (surplus > 0) {
    const ids = sql(db, `SELECT job_id FROM sysjobs ORDER BY job_id DESC LIMIT ${surplus}`).trim().split('\n');
    const list = ids.map((i) => `'${i}'`).join(',');
    sql(db, ['sysjobs', 'sysjobsteps', 'sysjobschedules', 'sysjobhistory', 'sysjobactivity']
      .map((t) => `DELETE FROM ${t} WHERE job_id IN (${list})`).join(';\n') + ';');
  }
  const history = Number(sql(db, 'SELECT count(*) FROM sysjobhistory WHERE step_id = 0').trim());
  const config = path.join(dir, 'fleet.toml');
  fs.writeFileSync(config, `[[instance]]\nname = "${INSTANCE}"\nkind = "sqlite_demo"\npath = "${db}"\ntime_zone = "America/New_York"\n`);
  return { config, jobs: Number(sql(db, 'SELECT count(*) FROM sysjobs').trim()), history };
}

async function serve(config) {
  const port = await freePort();
  const child = spawn(bin, ['serve', '--config', config, '--now', NOW, '--addr', `127.0.0.1:${port}`], {
    cwd: REPO_DIR,
    env: { ...process.env, LEPTOS_SITE_ROOT: path.join(REPO_DIR, 'target', 'site'), LEPTOS_OUTPUT_NAME: 'sundial' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise((resolve, reject) => {
    const seen = (d) => {
      out += d;
      // Served, and the instance read once (its first poll).
      if (/serving/i.test(out) && /read.*BIG200|BIG200.*read|jobs=\d+/i.test(out)) resolve();
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => reject(new Error(`sundial exited (${code}):\n${out}`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGINT'); }) };
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  const r = (x) => Math.round(x * 10) / 10;
  return { n: s.length, p50: r(q(0.5)), p95: r(q(0.95)), max: r(s[s.length - 1]) };
};

/** In the page: one input per frame for `frames` frames; each frame's work and interval. */
async function drive(page, kind, frames) {
  return page.evaluate(async ({ kind, frames }) => {
    const root = document.getElementById('itl-root');
    const plot = root.querySelector('.itl-plot');
    const top = root.querySelector('.itl-top');
    root.focus();
    const r = plot.getBoundingClientRect();
    const y = top.getBoundingClientRect().top + 10;
    let x = r.left + r.width / 2;
    const work = [];
    const gaps = [];
    const channel = new MessageChannel();
    let pending = null;
    channel.port1.onmessage = () => { if (pending) { work.push(performance.now() - pending); pending = null; } };
    if (kind === 'drag') {
      plot.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, clientX: x, clientY: r.top + 5, button: 0, pointerId: 7, isPrimary: true }));
    }
    let last = null;
    for (let i = 0; i < frames; i++) {
      await new Promise((done) => requestAnimationFrame((t) => {
        if (last !== null) gaps.push(t - last);
        last = t;
        // The island drew the previous input in this frame (its callback follows ours);
        // the posted task runs once the frame's style, layout and paint are done.
        pending = performance.now();
        channel.port2.postMessage(0);
        // Back and forth every 4 frames: the view stays inside what was read.
        const dir = Math.floor(i / 4) % 2 === 0 ? 1 : -1;
        if (kind === 'keys-pan') {
          root.dispatchEvent(new KeyboardEvent('keydown', { key: dir > 0 ? 'ArrowRight' : 'ArrowLeft', bubbles: true, cancelable: true }));
        } else if (kind === 'keys-zoom') {
          root.dispatchEvent(new KeyboardEvent('keydown', { key: dir > 0 ? '-' : '+', bubbles: true, cancelable: true }));
        } else if (kind === 'wheel') {
          top.dispatchEvent(new WheelEvent('wheel', { deltaY: 40 * dir, clientX: x, clientY: y, bubbles: true, cancelable: true }));
        } else {
          x += 12 * dir;
          plot.dispatchEvent(new PointerEvent('pointermove', { bubbles: true, clientX: x, clientY: r.top + 5, button: 0, pointerId: 7, isPrimary: true }));
        }
        done();
      }));
    }
    if (kind === 'drag') {
      plot.dispatchEvent(new PointerEvent('pointerup', { bubbles: true, clientX: x, clientY: r.top + 5, button: 0, pointerId: 7 }));
    }
    await new Promise((d) => setTimeout(d, 50));
    return { work, gaps };
  }, { kind, frames });
}

async function main() {
  const built = buildInstance();
  const server = await serve(built.config);
  const browserDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sundial-bench-chromium-'));
  const context = await chromium.launchPersistentContext(browserDir, {
    executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, viewport: { width: 1440, height: 900 },
  });
  const report = { instance: { ...built, config: undefined }, view: '7 days before now' };
  try {
    const now = Date.parse(NOW);
    const from = new Date(now - 7 * 86400e3).toISOString().replace('.000', '');
    const url = `${server.url}/timeline?from=${from}&to=${NOW}&instance=${INSTANCE}`;

    // The server: the whole HTML (the first request also analyses the read: reported apart).
    let t = performance.now();
    let html = await (await fetch(url)).text();
    report.server_first_ms = Math.round(performance.now() - t);
    const times = [];
    for (let i = 0; i < 10; i++) {
      t = performance.now();
      html = await (await fetch(url)).text();
      times.push(performance.now() - t);
    }
    report.server_html_ms = stats(times);
    report.html_bytes = html.length;
    report.svg_elements = (html.match(/<(path|rect|a) /g) || []).length;
    report.rows = (html.match(/data-testid="itl-job"/g) || []).length;

    // Navigation to interactive.
    await context.addInitScript(() => {
      new MutationObserver((_, obs) => {
        const r = document.getElementById('itl-root');
        if (r && r.hasAttribute('data-ready')) { window.__itlReady = performance.now(); obs.disconnect(); }
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });
    });
    const page = await context.newPage();
    const nav = [];
    for (let i = 0; i < RUNS; i++) {
      await page.goto(url, { waitUntil: 'load' });
      await page.waitForFunction(() => window.__itlReady);
      nav.push(await page.evaluate(() => {
        const n = performance.getEntriesByType('navigation')[0];
        const fcp = performance.getEntriesByName('first-contentful-paint')[0];
        return {
          response_start: n.responseStart, response_end: n.responseEnd, dom_content_loaded: n.domContentLoadedEventEnd,
          load: n.loadEventEnd, first_contentful_paint: fcp ? fcp.startTime : null, interactive: window.__itlReady,
        };
      }));
    }
    report.navigation_ms = Object.fromEntries(Object.keys(nav[0]).map((k) => [k, stats(nav.map((n) => n[k]).filter((v) => v !== null))]));

    report.interactive_each_ms = nav.map((n) => Math.round(n.interactive));
    // The first navigation (a browser just started: nothing cached, the WASM compiled; the
    // page rendered for the browser's encoding) in full.
    const whole = (n) => Object.fromEntries(Object.entries(n).map(([k, v]) => [k, v === null ? null : Math.round(v)]));
    report.first_navigation_ms = whole(nav[0]);
    // A visitor's first page in a browser already running: its cache emptied (the WASM
    // downloaded and compiled again), a new tab.
    const cold = [];
    for (let i = 0; i < 3; i++) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.clearBrowserCache');
      await cdp.detach();
      const tab = await context.newPage();
      await tab.goto(url, { waitUntil: 'load' });
      await tab.waitForFunction(() => window.__itlReady);
      cold.push(await tab.evaluate(() => ({
        response_end: performance.getEntriesByType('navigation')[0].responseEnd,
        load: performance.getEntriesByType('navigation')[0].loadEventEnd,
        interactive: window.__itlReady,
      })));
      await tab.close();
    }
    report.cache_cold_navigation_ms = cold.map(whole);

    // Zoom and pan, one input per frame, on a week in the middle of what was read.
    const mid = `${server.url}/timeline?from=${new Date(now - 14 * 86400e3).toISOString().replace('.000', '')}`
      + `&to=${new Date(now - 7 * 86400e3).toISOString().replace('.000', '')}&instance=${INSTANCE}`;
    report.frames = {};
    for (const kind of ['keys-pan', 'keys-zoom', 'wheel', 'drag']) {
      await page.goto(mid, { waitUntil: 'load' });
      await page.waitForFunction(() => window.__itlReady);
      const { work, gaps } = await drive(page, kind, FRAMES);
      report.frames[kind] = { work_ms: stats(work.slice(2)), interval_ms: stats(gaps.slice(2)), over_16ms: work.slice(2).filter((w) => w > 16).length };
    }

    // Once the reader pauses: the chart for the new view fetched and swapped in. The frame
    // that swaps it, and the time from the key to the new chart.
    await page.goto(mid, { waitUntil: 'load' });
    await page.waitForFunction(() => window.__itlReady);
    report.after_pause = await page.evaluate(async () => {
      const root = document.getElementById('itl-root');
      root.focus();
      const before = document.getElementById('itl-chart');
      const t0 = performance.now();
      const works = [];
      const channel = new MessageChannel();
      let pending = null;
      channel.port1.onmessage = () => { if (pending) { works.push(performance.now() - pending); pending = null; } };
      root.dispatchEvent(new KeyboardEvent('keydown', { key: '+', bubbles: true, cancelable: true }));
      let swapped = null;
      while (performance.now() - t0 < 3000 && swapped === null) {
        await new Promise((d) => requestAnimationFrame(() => { pending = performance.now(); channel.port2.postMessage(0); d(); }));
        if (document.getElementById('itl-chart') !== before) swapped = performance.now() - t0;
      }
      await new Promise((d) => setTimeout(d, 100));
      return { swapped_after_ms: swapped && Math.round(swapped), longest_frame_ms: Math.round(Math.max(...works)) };
    });
    await page.close();
  } finally {
    await context.close();
    await server.stop();
    fs.rmSync(browserDir, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(report, null, 2));
}

main().catch((e) => { console.error(e); process.exit(1); });
