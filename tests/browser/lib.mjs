// Shared by the browser scripts: Debian's chromium launched headless through playwright-core,
// browser contexts that record console errors, page errors and every request that would leave
// 127.0.0.1 (such requests are also aborted), screenshots under target/screenshots/.

import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const BASE = process.env.BASE_URL;
export const SHOTS = process.env.SCREENSHOTS;
if (!BASE || !SHOTS) {
  console.error('BASE_URL and SCREENSHOTS must be set (the Rust test sets them)');
  process.exit(2);
}
mkdirSync(SHOTS, { recursive: true });

export const problems = { consoleErrors: [], foreignRequests: [], urlsWithToken: [] };
/** Answers a script provokes on purpose (a 4xx the page shows in words): the browser logs each
 * as "Failed to load resource", which is then not counted as a console error. */
const provoked = [];
/** Declares that a request whose URL matches `pattern` is answered with an error on purpose. */
export function provoke(pattern) { provoked.push(pattern); }
const tokens = new Set();
/** Remembers a bearer token so that any URL carrying it is reported. */
export function secret(token) { tokens.add(token); }

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

function local(url) {
  if (url.startsWith('data:') || url.startsWith('blob:') || url === 'about:blank') return true;
  try { return new URL(url).hostname === '127.0.0.1'; } catch { return false; }
}

/** A fresh browser context (its own localStorage) that watches what its pages do. */
/** `intercept: false` only records requests (routing every request through the driver
 * would slow the pages whose draw time is measured). */
/** `options`: more of playwright's context options (`bypassCSP` for axe, `colorScheme`). */
export async function context(browser, name, viewport = { width: 1280, height: 900 }, { intercept = true, options = {} } = {}) {
  const ctx = await browser.newContext({ viewport, acceptDownloads: true, ...options });
  if (intercept) {
    await ctx.route('**/*', (route) => (local(route.request().url()) ? route.continue() : route.abort()));
  }
  ctx.on('request', (request) => {
    const url = request.url();
    if (!local(url)) problems.foreignRequests.push(`${name}: ${url}`);
    for (const t of tokens) if (url.includes(t)) problems.urlsWithToken.push(`${name}: ${url}`);
  });
  ctx.on('page', (page) => watch(page, name));
  return ctx;
}

function watch(page, name) {
  page.on('console', (msg) => {
    const url = msg.location().url || '';
    if (msg.type() === 'error' && msg.text().startsWith('Failed to load resource') && provoked.some((p) => p.test(url))) return;
    if (msg.type() === 'error') problems.consoleErrors.push(`${name}: ${msg.text()} @ ${JSON.stringify(msg.location())}`);
  });
  page.on('pageerror', (error) => problems.consoleErrors.push(`${name}: page error ${error.message}`));
}

/** What every open page showed when a script failed: its address, the start of its text and a
 * screenshot (`failed-<n>.png`), so that a failure seen once (in CI) can be read afterwards. */
export async function lastSight(browser) {
  const seen = [];
  for (const ctx of browser.contexts()) {
    for (const page of ctx.pages()) {
      const screenshot = `failed-${seen.length + 1}.png`;
      let text = '';
      try { text = (await page.locator('body').innerText({ timeout: 2000 })).slice(0, 400); } catch { text = '(no text)'; }
      try { await page.screenshot({ path: join(SHOTS, screenshot), timeout: 5000 }); } catch { /* the page may be gone */ }
      seen.push({ url: page.url(), text, screenshot });
    }
  }
  return seen;
}

export async function shot(page, file, width) {
  const size = page.viewportSize();
  await page.setViewportSize({ width, height: size ? size.height : 900 });
  await page.waitForTimeout(100);
  const path = join(SHOTS, file);
  await page.screenshot({ path, fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (size) await page.setViewportSize(size);
  return { path, overflow };
}

/** Controls without an accessible name (the page's every button, link, input, select). */
export async function unnamedControls(page) {
  return page.evaluate(() => {
    const bad = [];
    for (const el of document.querySelectorAll('button, a[href], input, select, textarea')) {
      if (el.closest('[hidden]') || el.type === 'hidden') continue;
      let name = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') && document.getElementById(el.getAttribute('aria-labelledby'))?.textContent;
      if (!name && el.labels && el.labels.length) name = el.labels[0].textContent;
      if (!name && el.tagName !== 'INPUT' && el.tagName !== 'SELECT' && el.tagName !== 'TEXTAREA') name = el.textContent;
      if (!name) name = el.getAttribute('title');
      if (!name || !name.trim()) bad.push(el.outerHTML.slice(0, 120));
    }
    return bad;
  });
}

/** The placement (FEN first field) read back from the squares drawn on the page. */
export async function drawnPlacement(page) {
  return page.evaluate(() => {
    const piece = (sq) => document.querySelector(`.board [data-square="${sq}"]`)?.dataset.piece || '';
    const rows = [];
    for (let rank = 8; rank >= 1; rank -= 1) {
      let row = '';
      let empty = 0;
      for (const file of 'abcdefgh') {
        const p = piece(`${file}${rank}`);
        if (p) { if (empty) row += empty; empty = 0; row += p; } else empty += 1;
      }
      if (empty) row += empty;
      rows.push(row);
    }
    return rows.join('/');
  });
}

/** GET on the API from Node (for checks against what the page shows). */
export async function api(path, token) {
  const res = await fetch(`${BASE}/v1${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

export function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
}

/** POST on the API from Node (moves played for a player whose page is not under test). */
export async function apiPost(path, token, body, headers = {}) {
  const res = await fetch(`${BASE}/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Signs a new person up through the account page; returns their key (remembered as secret). */
/** A player signed up over the API (not in a browser): their token, kept secret. */
export async function newPlayer(name) {
  const res = await fetch(`${BASE}/v1/players`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }),
  });
  check(res.ok, `POST /players: ${res.status}`);
  const made = await res.json();
  secret(made.token);
  return made.token;
}

export async function signUp(page, name) {
  await page.goto(`${BASE}/#/account`);
  await page.getByLabel('Your name').fill(name);
  await page.getByRole('button', { name: 'Sign up' }).click();
  const key = (await page.getByTestId('key').textContent()).trim();
  check(key.length > 10, 'the key is shown once after sign-up');
  secret(key);
  await page.getByTestId('key-saved').click();
  return key;
}

/** The serious and critical violations axe-core finds on the page as it is now (the page's
 * context must bypass the CSP, which keeps any injected script out otherwise), and the ids of
 * the rules that found elements to check (`applied`). */
export async function axeViolations(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) {
    await page.addScriptTag({ path: new URL('./node_modules/axe-core/axe.min.js', import.meta.url).pathname });
  }
  return page.evaluate(async () => {
    const result = await window.axe.run(document, {
      resultTypes: ['violations'],
      // Also the name/visible-text rule, which axe leaves out of its default set.
      rules: { 'label-content-name-mismatch': { enabled: true } },
    });
    const violations = result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}: ${n.html.slice(0, 160)}`) }));
    const applied = [...result.passes, ...result.violations, ...result.incomplete].map((r) => r.id);
    return { violations, applied };
  });
}

/** Runs a script's body with a browser launched for it: `body(browser)` fills `result`, which
 * is then printed as one line `RESULT {json}` for the Rust test with the problems seen; when
 * the body fails, with its error and what every open page showed (see `lastSight`). */
export async function run(result, body) {
  const browser = await launch();
  try {
    await body(browser);
    result.problems = problems;
    console.log(`RESULT ${JSON.stringify(result)}`);
  } catch (error) {
    console.error(error.stack || String(error));
    const pages = await lastSight(browser);
    console.log(`RESULT ${JSON.stringify({ ...result, error: String(error.message || error), pages, problems })}`);
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
}

/** Screenshots of a page at 1280 and 375 px wide, named `<name>-<width>.png`, each recorded in
 * `result` (its path, and by how much the page scrolls sideways). */
export function snapper(result) {
  return async (page, name) => {
    for (const width of [1280, 375]) {
      const s = await shot(page, `${name}-${width}.png`, width);
      result.screenshots.push(s.path);
      result.overflow[`${name}-${width}`] = s.overflow;
    }
  };
}
