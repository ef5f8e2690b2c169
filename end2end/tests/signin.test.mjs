// Sign-in, as a DBA meets it when Sundial is served with accounts (`--users`): any page sends
// them to the sign-in page and, once signed in, back to the page they asked for; the header
// names them with a way to sign out; a viewer sees no acknowledge form; a wrong password says
// so; an alert's link followed from another site (a chat) opens the page for a signed-in reader
// (the session cookie is SameSite=Strict, so Sundial asks again from its own site).
//
//   cd end2end && SUNDIAL_BIN=../target/release/sundial node --test tests/signin.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, RESULTS_DIR, SUNDIAL_BIN } from '../config.mjs';
import { freePort, startSundial } from './server.mjs';

const ADMIN = ['oncall', 'admin password 1'];
const VIEWER = ['auditor', 'viewer password 2'];

let server = null;
let browser = null;
let chat = null;
let dir = null;
const problems = [];

function hash(password) {
  return execFileSync(path.resolve(SUNDIAL_BIN), ['hash-password'], { input: `${password}\n` }).toString().trim();
}

before(async () => {
  if (!SUNDIAL_BIN) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sundial-signin-'));
  const users = path.join(dir, 'users.toml');
  fs.writeFileSync(users, [
    `[[user]]\nname = "${ADMIN[0]}"\nrole = "admin"\npassword_hash = "${hash(ADMIN[1])}"`,
    `[[user]]\nname = "${VIEWER[0]}"\nrole = "viewer"\npassword_hash = "${hash(VIEWER[1])}"`,
  ].join('\n\n'));
  server = await startSundial(SUNDIAL_BIN, { args: ['--users', users] });
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  chat?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function context(options = {}) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  ctx.setDefaultTimeout(30_000);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console on ${page.url()}: ${m.text()}`); });
  return { ctx, page };
}

async function signIn(page, [name, password]) {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

test('a page asks for sign-in, then opens as the admin who signed in', { skip: !SUNDIAL_BIN && 'SUNDIAL_BIN not set' }, async () => {
  const { ctx, page } = await context();
  await page.goto(`${server.url}/triage`);
  assert.match(page.url(), /\/signin\?next=%2Ftriage$/);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'signin.png') });

  await signIn(page, [ADMIN[0], 'not the password']);
  await page.locator('[data-testid="signin-message"]').waitFor();
  assert.match(await page.locator('[data-testid="signin-message"]').innerText(), /do not match an account/);
  assert.match(page.url(), /\/signin\?error=wrong&next=%2Ftriage$/);

  await signIn(page, ADMIN);
  await page.waitForURL(`${server.url}/triage`);
  await page.locator('body[data-hydrated="true"]').waitFor();
  const account = page.locator('[data-testid="account"]');
  assert.match(await account.innerText(), /oncall\s+admin/);
  assert.ok(await page.locator('[data-testid="ack-form"]').count() > 0, 'the admin may acknowledge');
  assert.equal(await page.locator('[data-testid="ack-form"] input[name="by"]').count(), 0, 'in their own name');
  const cookies = await ctx.cookies();
  const session = cookies.find((c) => c.name === 'sundial_session');
  assert.ok(session, 'the session cookie is kept by the browser');
  assert.equal(session.httpOnly, true);
  assert.equal(session.secure, true);
  assert.equal(session.sameSite, 'Strict');
  await page.screenshot({ path: path.join(RESULTS_DIR, 'signin-admin-triage.png') });

  await page.locator('[data-testid="sign-out"]').click();
  await page.waitForURL(/\/signin\?out=1$/);
  assert.match(await page.locator('[data-testid="signin-message"]').innerText(), /signed out/);
  await page.goto(`${server.url}/fleet`);
  assert.match(page.url(), /\/signin\?next=%2Ffleet$/, 'signed out, pages ask again');
  await ctx.close();
});

test('a viewer reads triage without a form to acknowledge', { skip: !SUNDIAL_BIN && 'SUNDIAL_BIN not set' }, async () => {
  const { ctx, page } = await context({ colorScheme: 'dark', viewport: { width: 390, height: 844 } });
  await page.goto(`${server.url}/signin`);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'signin-phone-dark.png') });
  await signIn(page, VIEWER);
  await page.waitForURL(`${server.url}/`);
  await page.goto(`${server.url}/triage`);
  assert.ok(await page.locator('[data-testid="problem"]').count() > 0, 'the problems are listed');
  assert.equal(await page.locator('[data-testid="ack-form"]').count(), 0);
  // On a phone, who is signed in is behind the header's Menu.
  await page.locator('[data-testid="menu"]').click();
  assert.match(await page.locator('[data-testid="account"]').innerText(), /auditor\s+viewer/);
  await ctx.close();
});

test("an alert's link from another site opens for a signed-in reader", { skip: !SUNDIAL_BIN && 'SUNDIAL_BIN not set' }, async () => {
  // The "chat": a page on http://localhost (another site than http://127.0.0.1) with the link.
  const port = await freePort();
  const target = `${server.url}/triage?from=alert`;
  chat = http.createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!DOCTYPE html><title>chat</title><a id="alert" href="${target}">SQLPROD01: job failed</a>`);
  });
  await new Promise((r) => chat.listen(port, '127.0.0.1', r));
  const { ctx, page } = await context();
  await page.goto(`${server.url}/signin`);
  await signIn(page, ADMIN);
  await page.waitForURL(`${server.url}/`);
  await page.goto(`http://localhost:${port}/`);
  const asked = [];
  page.on('request', (r) => { if (r.url() === target) asked.push(r.allHeaders().then((h) => h['sec-fetch-site'])); });
  await page.click('#alert');
  await page.waitForURL(target);
  await page.locator('[data-testid="account"]').waitFor();
  // The browser kept the Strict cookie back from the cross-site click; Sundial asked again.
  assert.deepEqual(await Promise.all(asked), ['cross-site', 'same-origin']);
  assert.match(await page.locator('[data-testid="account"]').innerText(), /oncall/);
  await ctx.close();
  // Not signed in, the same link leads to the sign-in page, then back to the alert's page.
  const fresh = await context();
  await fresh.page.goto(`http://localhost:${port}/`);
  await fresh.page.click('#alert');
  await fresh.page.waitForURL(/\/signin\?next=/);
  await signIn(fresh.page, ADMIN);
  await fresh.page.waitForURL(target);
  await fresh.ctx.close();
});

test('no page error and nothing blocked', { skip: !SUNDIAL_BIN && 'SUNDIAL_BIN not set' }, () => {
  assert.deepEqual(problems, []);
});
