// Two players sign up in two browser contexts, one creates a game of Avalanche Chess in the
// lobby, the other joins it, and they play it to checkmate (the first turn by keyboard only:
// the board's one tab stop, the arrow keys, the push chosen by its square; the mate by clicking
// the push square the board marks); a draw offer and a
// takeback request are declined on the way; each page follows the other's moves live; a third
// context watches without an account. Then replay (checked against GET states/{version}),
// audit, seed, export of the record, import of it, and the page's draw time.
// Prints one line `RESULT {json}` for the Rust test.

import { readFileSync } from 'node:fs';
import {
  BASE, context, shot, unnamedControls, drawnPlacement, api, check, secret, run,
} from './lib.mjs';

const result = { screenshots: [], drawMs: [], unnamed: {}, overflow: {} };

async function signUp(page, name) {
  await page.goto(`${BASE}/#/account`);
  await page.getByLabel('Your name').fill(name);
  await page.getByRole('button', { name: 'Sign up' }).click();
  const key = (await page.getByTestId('key').textContent()).trim();
  check(key.length > 10, 'the key is shown once after sign-up');
  secret(key);
  const stored = await page.evaluate(() => localStorage.getItem('avalanche.token'));
  check(stored === key, 'the token is kept in localStorage');
  await page.getByTestId('key-saved').click();
  await page.waitForURL(/#\/$/);
  return key;
}

async function waitTurn(page, text) {
  await page.getByTestId('turn').filter({ hasText: text }).waitFor({ timeout: 20000 });
}

/** The square that has the keyboard focus. */
const focused = (page) => page.evaluate(() => document.activeElement?.dataset.square || null);

/** Walks the focus from square to square with the arrow keys (White at the bottom). */
async function arrowTo(page, to) {
  const from = await focused(page);
  check(from, 'a square has the focus');
  const files = 'abcdefgh';
  const df = files.indexOf(to[0]) - files.indexOf(from[0]);
  const dr = Number(to[1]) - Number(from[1]);
  for (let i = 0; i < Math.abs(df); i += 1) await page.keyboard.press(df > 0 ? 'ArrowRight' : 'ArrowLeft');
  for (let i = 0; i < Math.abs(dr); i += 1) await page.keyboard.press(dr > 0 ? 'ArrowUp' : 'ArrowDown');
  check(await focused(page) === to, `the arrows led from ${from} to ${to} (focus on ${await focused(page)})`);
}

/** A whole turn by keyboard: Tab onto the board, arrows and Enter for the piece, its target
 * and the push square, then Enter on "Play". */
async function keyboardTurn(page, from, to, push, notation) {
  const stops = await page.locator('.board .sq[tabindex="0"]').count();
  check(stops === 1, `the board is one tab stop, not 64 (${stops})`);
  // Tab reaches the board from the control before it, and leaves it from any square.
  await page.locator('.board .sq[tabindex="0"]').focus();
  await page.keyboard.press('Shift+Tab');
  check(await focused(page) === null, 'Shift+Tab leaves the board');
  await page.keyboard.press('Tab');
  check(await focused(page), 'Tab comes back onto the board');
  await arrowTo(page, from);
  await page.keyboard.press('Enter');
  await page.locator(`.board [data-square="${from}"].from`).waitFor();
  await page.locator(`.board [data-square="${to}"].target`).waitFor();
  check(await focused(page) === from, `the focus stays on ${from} once it is chosen`);
  await arrowTo(page, to);
  await page.keyboard.press('Enter');
  await page.locator(`.board [data-square="${push}"].push`).waitFor();
  // The focus went to the pushes offered; back onto the board (its tab stop is the target).
  await page.locator('.board .sq[tabindex="0"]').focus();
  check(await focused(page) === to, `the board's tab stop is now ${to}`);
  await arrowTo(page, push);
  await page.keyboard.press('Enter');
  const confirm = page.getByTestId('confirm');
  await page.locator(`.pick-push button[data-notation="${notation}"][aria-pressed="true"]`).waitFor();
  check(await page.evaluate(() => document.activeElement?.dataset.testid) === 'confirm', 'the focus goes to Play');
  check((await confirm.textContent()).includes(notation), `the push square chose ${notation}`);
  await page.keyboard.press('Enter');
}

async function movesText(page) {
  return (await page.getByTestId('moves').textContent()).replace(/\s+/g, ' ').trim();
}

await run(result, async (browser) => {
  const alice = await context(browser, 'alice');
  const bruno = await context(browser, 'bruno');
  const watcher = await context(browser, 'spectator');
  const a = await alice.newPage();
  const b = await bruno.newPage();

  const aliceKey = await signUp(a, 'Alice');
  const brunoKey = await signUp(b, 'Bruno');

  // Alice creates a game in the lobby: Avalanche Chess, standard, 2 players, 3 days a move.
  await a.getByLabel('Game', { exact: true }).selectOption('avalanche-chess');
  await a.getByLabel('Variant').selectOption('standard');
  await a.getByLabel('Clock').selectOption('days_per_move');
  await a.getByLabel('Allowance per move').fill('3');
  await a.getByRole('button', { name: 'Create the game' }).click();
  await a.waitForURL(/#\/game\//);
  const id = decodeURIComponent(a.url().split('#/game/')[1]);
  result.game = id;
  await waitTurn(a, 'Waiting for players');
  await a.evaluate(() => { window.noReload = true; });

  // Bruno finds it among the open games and joins.
  await b.goto(`${BASE}/#/`);
  const line = b.getByTestId('open-games').locator('li', { hasText: 'Alice' });
  await line.getByRole('button', { name: /Join/ }).click();
  await b.waitForURL(new RegExp(`#/game/${id}`));
  await b.evaluate(() => { window.noReload = true; });
  await waitTurn(b, 'Waiting for Alice');
  // Alice's page learns that the game started without a reload.
  await waitTurn(a, 'Your turn');
  await a.waitForFunction(() => /Your turn/.test(document.title));

  // A spectator without an account.
  const w = await watcher.newPage();
  await w.goto(`${BASE}/#/game/${id}`);
  await w.getByTestId('spectator').waitFor();
  check(await w.locator('.board button[aria-disabled="false"]').count() === 0, 'a spectator cannot click the board');
  check(await w.locator('.table-actions button').count() === 0, 'a spectator has no table command');

  // Lobby screenshots (Alice, whose turn it is).
  const lobby = await alice.newPage();
  await lobby.goto(`${BASE}/#/`);
  await lobby.getByTestId('my-games').locator('.badge', { hasText: 'Your turn' }).waitFor();
  result.unnamed.lobby = await unnamedControls(lobby);
  for (const width of [1280, 375]) {
    const s = await shot(lobby, `lobby-${width}.png`, width);
    result.screenshots.push(s.path);
    result.overflow[`lobby-${width}`] = s.overflow;
  }
  await lobby.close();

  // 1. g4/e6 by Alice, by keyboard only: the board is one tab stop, the arrow keys walk to g2
  // and g4, Enter picks each; the push is chosen on the board by its marked square e6.
  await keyboardTurn(a, 'g2', 'g4', 'e6', 'g4/e6');
  result.keyboardTurn = true;
  await waitTurn(b, 'Your turn');
  check((await movesText(b)).includes('g4/e6'), 'Bruno sees g4/e6 without reloading');
  await w.getByTestId('moves').filter({ hasText: 'g4/e6' }).waitFor();

  // Bruno offers a draw; Alice's page shows the offer live and she declines.
  await b.locator('[data-command="offer_draw"]').click();
  await a.locator('[data-command="decline_draw"]').waitFor({ timeout: 20000 });
  await a.locator('[data-command="decline_draw"]').click();
  await b.locator('[data-command="offer_draw"]').waitFor({ timeout: 20000 });
  // Alice asks to take back her turn once her page has drawn the declined offer (a click on
  // the table it is replacing may be lost); Bruno declines.
  await a.locator('[data-command="decline_draw"]').waitFor({ state: 'detached', timeout: 20000 });
  await a.locator('[data-command="request_takeback"]').click();
  await a.getByTestId('takeback-pending').waitFor({ timeout: 20000 });
  await b.locator('[data-command="decline_takeback"]').waitFor({ timeout: 20000 });
  await b.locator('[data-command="decline_takeback"]').click();
  await b.locator('[data-command="decline_takeback"]').waitFor({ state: 'detached' });
  await waitTurn(b, 'Your turn');

  // Bruno picks the queen and h4: the pushes are offered; screenshots of the game in progress.
  await b.locator('.board [data-square="d8"]').click();
  await b.locator('.board [data-square="h4"]').click();
  await b.locator('.pick-push button').first().waitFor();
  const offered = await b.locator('.pick-push button').allTextContents();
  check(offered.includes('Qh4/f3#'), `Qh4/f3# is among the pushes offered: ${offered.join(' ')}`);
  result.unnamed.game = await unnamedControls(b);
  for (const width of [1280, 375]) {
    const s = await shot(b, `game-${width}.png`, width);
    result.screenshots.push(s.path);
    result.overflow[`game-${width}`] = s.overflow;
  }
  // The spectator's view of the same position.
  {
    const s = await shot(w, 'game-spectator-375.png', 375);
    result.screenshots.push(s.path);
    result.overflow['game-spectator-375'] = s.overflow;
  }

  // 1... Qh4/f3#: the push opens the diagonal to Alice's king: checkmate. Bruno clicks the
  // push square the board marks (f3) rather than its button.
  const f3 = b.locator('.board [data-square="f3"]');
  check(await f3.evaluate((el) => el.classList.contains('push') && /a push may go here/.test(el.getAttribute('aria-label'))), 'f3 is marked as a push square');
  await f3.click();
  await b.locator('.pick-push button[data-notation="Qh4/f3#"][aria-pressed="true"]').waitFor();
  check((await b.getByTestId('confirm').textContent()).includes('Qh4/f3#'), 'the push square clicked chose Qh4/f3#');
  result.pushSquareClicked = true;
  await b.getByTestId('confirm').click();
  for (const [page, who] of [[a, 'alice'], [b, 'bruno'], [w, 'spectator']]) {
    await page.getByTestId('turn').filter({ hasText: 'Bruno won' }).waitFor({ timeout: 20000 });
    check((await movesText(page)).includes('Qh4/f3#'), `${who} sees the mate in the move list`);
  }
  check(await a.evaluate(() => window.noReload === true), 'Alice\'s page was never reloaded');
  check(await b.evaluate(() => window.noReload === true), 'Bruno\'s page was never reloaded');
  result.finalTurnText = await a.getByTestId('turn').textContent();
  {
    const s = await shot(a, 'game-finished-1280.png', 1280);
    result.screenshots.push(s.path);
    result.overflow['game-finished-1280'] = s.overflow;
  }

  // The game page's draw time: fresh loads of the finished game, measured by the page itself.
  const timing = await (await context(browser, 'timing', undefined, { intercept: false })).newPage();
  await timing.goto(`${BASE}/#/account`);
  await timing.evaluate((t) => localStorage.setItem('avalanche.token', t), aliceKey);
  await timing.goto('about:blank');
  for (let i = 0; i < 7; i += 1) {
    await timing.goto(`${BASE}/#/game/${id}`);
    await timing.waitForFunction(() => performance.getEntriesByName('avalanche:table-drawn').length > 0);
    result.drawMs.push(await timing.evaluate(() => performance.getEntriesByName('avalanche:table-drawn')[0].startTime));
    await timing.goto('about:blank');
  }
  await timing.close();

  // Replay: to the last version, then back with the keyboard; three versions checked.
  const r = await alice.newPage();
  await r.goto(`${BASE}/#/replay/${id}`);
  const game = await api(`/games/${id}`, aliceKey);
  await r.getByTestId('version').filter({ hasText: `version ${game.version} of ${game.version}` }).waitFor();
  result.unnamed.replay = await unnamedControls(r);
  const seen = [];
  async function checkVersion(v) {
    await r.getByTestId('version').filter({ hasText: `version ${v} of` }).waitFor();
    await r.waitForFunction((x) => document.getElementById('main').dataset.version === String(x), v);
    const state = await api(`/games/${id}/states/${v}`, aliceKey);
    const drawn = await drawnPlacement(r);
    check(drawn === state.view.placement, `version ${v}: the board ${drawn} is the state's ${state.view.placement}`);
    seen.push({ version: v, placement: drawn });
  }
  await checkVersion(game.version);
  // Back with the arrow key, move by move, until the board changes (before the mate).
  let v = game.version;
  const finalPlacement = seen[0].placement;
  while (v > 1) {
    await r.keyboard.press('ArrowLeft');
    await r.waitForFunction((x) => Number(document.getElementById('main').dataset.version) < x, v);
    v = Number(await r.evaluate(() => document.getElementById('main').dataset.version));
    if (await drawnPlacement(r) !== finalPlacement) break;
  }
  await checkVersion(v);
  // The first move's step (where play began), with the button; then the slider, version by
  // version, with the keyboard.
  await r.getByRole('button', { name: 'First move' }).click();
  const start = Number(await r.getByTestId('replay-moves').locator('button.step').first().getAttribute('data-version'));
  await checkVersion(start);
  await r.getByTestId('slider').focus();
  await r.keyboard.press('ArrowRight');
  await checkVersion(start + 1);
  result.replay = seen;
  // A finished game shows its audit and revealed seed.
  await r.locator('[data-testid="audit"][data-valid="true"]').waitFor();
  const seed = (await r.getByTestId('seed').textContent()).trim();
  check(seed === game.seed && seed.length === 64, 'the revealed seed is shown');
  {
    const s = await shot(r, 'replay-375.png', 375);
    result.screenshots.push(s.path);
    result.overflow['replay-375'] = s.overflow;
  }
  // Export the record.
  const [download] = await Promise.all([r.waitForEvent('download'), r.getByTestId('export').click()]);
  const record = readFileSync(await download.path(), 'utf8');
  check(record.includes('Qh4/f3#'), 'the exported record has the mate');
  result.record = record;

  // Import it by pasting, and land on the imported game.
  await r.goto(`${BASE}/#/import`);
  result.unnamed.import = await unnamedControls(r);
  await r.getByLabel('Record').fill(record);
  await r.getByRole('button', { name: 'Import' }).click();
  await r.waitForURL((url) => url.hash.startsWith('#/replay/') && !url.hash.includes(id));
  const imported = decodeURIComponent(r.url().split('#/replay/')[1].split('/')[0]);
  check(imported !== id, 'the import is a new game');
  await r.locator('.board').waitFor();
  await r.locator('[data-testid="audit"][data-valid="true"]').waitFor();
  const importedLast = await api(`/games/${imported}`, aliceKey);
  await r.getByTestId('version').filter({ hasText: `version ${importedLast.version} of` }).waitFor();
  check(await drawnPlacement(r) === finalPlacement, 'the imported game ends on the same board');
  result.imported = imported;

  // An analysis fork from a version of the finished game.
  await r.goto(`${BASE}/#/replay/${id}/${v}`);
  await r.getByTestId('version').filter({ hasText: `version ${v} of` }).waitFor();
  await r.getByTestId('fork').click();
  await r.waitForURL((url) => url.hash.startsWith('#/game/') && !url.hash.includes(id));
  await r.locator('.board').waitFor();
  result.fork = decodeURIComponent(r.url().split('#/game/')[1]);

  // Keyboard only: Alice signs out and in again with her key using Tab and Enter alone.
  const k = await alice.newPage();
  await k.goto(`${BASE}/#/account`);
  await k.getByTestId('sign-out').focus();
  await k.keyboard.press('Enter');
  await k.getByText('Have a key? Sign in').waitFor();
  await k.getByLabel('Your key').focus();
  await k.keyboard.type(aliceKey);
  await k.keyboard.press('Enter');
  await k.waitForURL(/#\/$/);
  check(await k.evaluate(() => localStorage.getItem('avalanche.token')) === aliceKey, 'signed in again with the key');
  result.keyboardSignIn = true;

});
