// How the browser test finds the browser and the server. No downloads: playwright-core drives
// Debian's Chromium; the server is either BASE_URL or the `sundial` binary it starts itself.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const E2E_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_DIR = path.resolve(E2E_DIR, '..');
export const RESULTS_DIR = path.join(E2E_DIR, 'test-results');

/** Chromium as Debian installs it (`apt-get install chromium`). */
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A running server to test (e.g. http://127.0.0.1:3000); when unset and SUNDIAL_BIN is set,
 *  the test starts `$SUNDIAL_BIN serve` on a free port with the demo's fixed "now". */
export const BASE_URL = process.env.BASE_URL || '';
export const SUNDIAL_BIN = process.env.SUNDIAL_BIN || '';
export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
/** The demo's "now" when the test starts the server: its zombie period is now-9d..now-7d. */
export const DEMO_NOW = process.env.SUNDIAL_DEMO_NOW || '2026-11-22T12:00:00Z';
