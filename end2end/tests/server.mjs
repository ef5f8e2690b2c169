// Start `sundial serve` for the test and wait for its readiness line (never a sleep).
import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_DIR, DEMO_NOW } from '../config.mjs';

/** A port free on loopback now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Returns { url, stop }; `args`: more flags for `serve` (e.g. `--users FILE`). */
export async function startSundial(bin, { args = [] } = {}) {
  const exe = path.resolve(process.cwd(), bin);
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sundial-e2e-'));
  const child = spawn(exe, ['serve', '--addr', `127.0.0.1:${port}`, ...args], {
    cwd: REPO_DIR,
    env: {
      ...process.env,
      LEPTOS_SITE_ROOT: process.env.LEPTOS_SITE_ROOT || path.join(REPO_DIR, 'target', 'site'),
      LEPTOS_OUTPUT_NAME: 'sundial',
      SUNDIAL_DEMO_DB: path.join(dir, 'demo.sqlite'),
      SUNDIAL_NOW: DEMO_NOW,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (d) => { log += d; });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/serving .*?(http:\/\/[^\s]+)/i);
      if (m) resolve(m[1].replace(/\/$/, ''));
    });
    child.on('exit', (code) => reject(new Error(`sundial exited (${code}) before serving:\n${out}\n${log}`)));
    child.on('error', reject);
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { url, stop };
}

/** What a browser test starts with: the server to test (BASE_URL, else `$SUNDIAL_BIN serve`
 *  on the demo) and Chromium; `stop()` ends both. */
export async function sundialAndBrowser() {
  const { chromium } = await import('playwright-core');
  const { BASE_URL, CHROMIUM, CHROMIUM_ARGS, DEFAULT_BASE_URL, RESULTS_DIR, SUNDIAL_BIN } = await import('../config.mjs');
  const server = !BASE_URL && SUNDIAL_BIN ? await startSundial(SUNDIAL_BIN) : null;
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
  const stop = async () => {
    await browser.close();
    await server?.stop();
  };
  return { base: server?.url ?? (BASE_URL || DEFAULT_BASE_URL), browser, stop };
}

/** The four looks a page is checked in: a phone (390 × 844, touch) and a desk (1440 × 900),
 *  each light and dark; `name` for screenshots (`390-dark`), `phone` for phone-only checks. */
export const LOOKS = [
  ['390', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
  ['1440', { viewport: { width: 1440, height: 900 } }],
].flatMap(([w, size]) => ['light', 'dark'].map((scheme) => ({
  name: `${w}-${scheme}`, phone: w === '390', options: { ...size, colorScheme: scheme },
})));

/** A new browser context in `look` and its page at `url`, once the islands are live; the page's
 *  errors are collected in `errors`. */
export async function openIn(browser, base, look, url) {
  const context = await browser.newContext(look.options);
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}${url}`);
  await page.locator('body[data-hydrated="true"]').waitFor();
  return { page, context, errors };
}

/** Fails when the page scrolls sideways (`what` names it). */
export async function noSidewaysScroll(page, what) {
  const { default: assert } = await import('node:assert/strict');
  const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(over <= 0, `${what}: ${over} px of sideways scroll`);
}
