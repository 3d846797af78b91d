// Correspondence play as Ana and Ben live it, each in their own browser context, through the
// pages' own controls: moves typed in the move box (a bad one refused in words); no takeback
// offered before one has moved; a takeback request that says what it takes back, withdrawn,
// declined (and the requester told), a declined draw offer said; an accepted takeback that
// both pages follow to the game that goes on, while the old game says "taken back" and links
// to it and the lobby lists the continuation only. Then, out of sight: a hidden lobby tab
// counts in its title and notifies (after Ana allowed it) when it becomes her turn; a banner
// when the server cannot be reached. Then the replay by its move list and the arrow keys, move
// numbers past 10 drawn whole, and a resignation said with names.
// Prints one line `RESULT {json}` for the Rust test.

import {
  BASE, context, unnamedControls, drawnPlacement, api, apiPost, check, problems, signUp, run,
  snapper, provoke,
} from './lib.mjs';

const result = { screenshots: [], overflow: {}, unnamed: {} };
const snap = snapper(result);

/** The legal game commands (not table commands) of a player now. */
async function moves(id, key) {
  const legal = await api(`/games/${id}/legal`, key);
  return legal.commands.filter((l) => l.command.type === 'turn');
}

async function typeMove(page, notation) {
  await page.getByTestId('move-input').fill(notation);
  await page.getByTestId('move-input').press('Enter');
}

async function turnText(page, text) {
  await page.getByTestId('turn').filter({ hasText: text }).waitFor({ timeout: 30000 });
}

await run(result, async (browser) => {
  const ana = await context(browser, 'ana');
  // Records every notification the page shows (the real Notification still shows it).
  await ana.addInitScript(() => {
    const Real = window.Notification;
    window.notified = [];
    if (Real) {
      window.Notification = class extends Real {
        constructor(title, options) { super(title, options); window.notified.push({ title, body: options && options.body }); }
      };
    }
  });
  const ben = await context(browser, 'ben');
  const a = await ana.newPage();
  const b = await ben.newPage();
  const anaKey = await signUp(a, 'Ana');
  const benKey = await signUp(b, 'Ben');
  const first = await apiPost('/games', anaKey, { kind: 'avalanche-chess', seats: 2, time_control: { type: 'days_per_move', days: 3 } });
  let id = first.id;
  await apiPost(`/games/${id}/join`, benKey, {});
  await a.goto(`${BASE}/#/game/${id}`);
  await b.goto(`${BASE}/#/game/${id}`);
  await a.evaluate(() => { window.noReload = true; });
  await b.evaluate(() => { window.noReload = true; });
  await turnText(a, 'Your turn');

  // Before anyone moved, nobody is offered a takeback.
  check(await a.locator('[data-command="request_takeback"]').count() === 0, 'no takeback before Ana has moved');
  check(await b.locator('[data-command="request_takeback"]').count() === 0, 'no takeback before Ben has moved');

  // Ana types her move; a move that is not legal is refused in words, nothing sent.
  provoke(/\/legal\?text=Ke5$/);
  await typeMove(a, 'Ke5');
  // The server's reader says why (the page asks it what a text means).
  const refused = a.locator('#status[data-kind="error"]');
  await refused.waitFor();
  check(/e5/.test(await refused.innerText()), `the refusal names the square: ${await refused.innerText()}`);
  const anaMove = (await moves(id, anaKey))[0].notation;
  await typeMove(a, anaMove);
  await turnText(b, 'Your turn');
  await b.getByTestId('moves').filter({ hasText: anaMove }).waitFor();
  const benMove = (await moves(id, benKey))[0].notation;
  await typeMove(b, benMove);
  await turnText(a, 'Your turn');
  const before = await api(`/games/${id}`, anaKey);
  check(before.turns_played === 1, `Ana has played one turn: ${before.turns_played}`);

  // Ana asks; her page says what waits and what it takes back; she withdraws it.
  await a.locator('[data-command="request_takeback"]').click();
  const pending = a.getByTestId('takeback-pending');
  await pending.waitFor();
  const pendingText = await pending.textContent();
  check(pendingText.includes(anaMove) && pendingText.includes(benMove) && /waiting for Ben/.test(pendingText),
    `the request names the moves it takes back and whom it waits for: ${pendingText}`);
  await b.locator('[data-command="accept_takeback"]').waitFor({ timeout: 30000 });
  check((await b.getByTestId('takeback-pending').textContent()).includes('Ana asks to take back'), 'Ben is told who asks');
  result.unnamed.pending = await unnamedControls(b);
  await snap(b, 'takeback-asked');
  await a.locator('[data-command="withdraw_takeback"]').click();
  await pending.waitFor({ state: 'detached' });
  await b.locator('[data-command="accept_takeback"]').waitFor({ state: 'detached', timeout: 30000 });
  await b.locator('#status').filter({ hasText: 'Ana withdrew' }).waitFor();

  // Asked again and declined: Ana is told.
  await a.locator('[data-command="request_takeback"]').click();
  await b.locator('[data-command="decline_takeback"]').waitFor({ timeout: 30000 });
  await b.locator('[data-command="decline_takeback"]').click();
  await a.locator('#status').filter({ hasText: 'Ben declined your takeback request' }).waitFor({ timeout: 30000 });
  // A draw offer declined: Ana is told too.
  await a.locator('[data-command="offer_draw"]').click();
  await a.getByTestId('draw-pending').filter({ hasText: 'You offered a draw' }).waitFor();
  await b.locator('[data-command="decline_draw"]').waitFor({ timeout: 30000 });
  await b.locator('[data-command="decline_draw"]').click();
  await a.locator('#status').filter({ hasText: 'Ben declined your draw offer' }).waitFor({ timeout: 30000 });

  // Asked once more and accepted: both pages go on in the game that continues it.
  await a.locator('[data-command="request_takeback"]').click();
  // The click only sends the request: ask until the server has taken it.
  let asked = await api(`/games/${id}`, anaKey);
  for (let tries = 0; !asked.takeback && tries < 300; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    asked = await api(`/games/${id}`, anaKey);
  }
  const backTo = asked.takeback.version;
  await b.locator('[data-command="accept_takeback"]').waitFor({ timeout: 30000 });
  const scrollBefore = await b.evaluate(() => window.scrollY);
  await b.locator('[data-command="accept_takeback"]').click();
  const old = id;
  // The click only sends the acceptance: ask until the server has taken it and written the
  // game that goes on (the old game reads superseded a moment before its continuation exists).
  const continued = (game) => game.superseded === true && typeof game.continued_in === 'string';
  let superseded = await api(`/games/${old}`, anaKey);
  for (let tries = 0; !continued(superseded) && tries < 300; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    superseded = await api(`/games/${old}`, anaKey);
  }
  check(continued(superseded), `the server names the continuation: ${JSON.stringify({ superseded: superseded.superseded, continued_in: superseded.continued_in })}`);
  id = superseded.continued_in;
  const backState = await api(`/games/${old}/states/${backTo}`, anaKey);
  for (const [page, who] of [[a, 'Ana'], [b, 'Ben']]) {
    await page.waitForURL(new RegExp(`#/game/${id}$`), { timeout: 30000 });
    await page.waitForFunction((x) => document.getElementById('main').dataset.game === x, id);
    check(await drawnPlacement(page) === backState.view.placement, `${who}'s board is at the taken-back position`);
    check(await page.evaluate(() => window.noReload === true), `${who}'s page followed without a reload`);
  }
  await turnText(a, 'Your turn');
  check(Math.abs(await b.evaluate(() => window.scrollY) - scrollBefore) < 50, 'Ben stays at the same place in the page');
  await snap(a, 'takeback-followed');

  // The old game says it was taken back (never drawn) and links to the game that goes on.
  const o = await ana.newPage();
  await o.goto(`${BASE}/#/game/${old}`);
  await o.getByTestId('taken-back').waitFor();
  const oldText = await o.locator('main').textContent();
  check(!/Drawn|superseded/.test(oldText), `the old game reads neither "Drawn" nor "superseded": ${oldText.slice(0, 300)}`);
  check((await o.getByTestId('turn').textContent()).includes('Taken back'), 'the old game says "taken back"');
  await snap(o, 'taken-back');
  await o.getByTestId('continuation').click();
  await o.waitForURL(new RegExp(`#/game/${id}$`));
  await o.close();

  // The lobby lists the continuation only; "my move" games first, with their count.
  const lobby = await ana.newPage();
  await lobby.goto(`${BASE}/#/`);
  await lobby.getByTestId('my-games').locator(`li[data-game="${id}"]`).waitFor();
  check(await lobby.locator(`li[data-game="${old}"]`).count() === 0, 'the superseded game is not listed');
  await lobby.getByTestId('my-move-count').filter({ hasText: '1 waiting' }).waitFor();
  check(await lobby.evaluate(() => document.title.startsWith('(1) Your turn')), 'the lobby title counts my games');
  result.unnamed.lobby = await unnamedControls(lobby);

  // Out of sight: Ana allows notifications, then the lobby tab is hidden.
  const allow = lobby.getByTestId('allow-notifications');
  await allow.waitFor();
  await ana.grantPermissions(['notifications'], { origin: BASE });
  await allow.click();
  await allow.waitFor({ state: 'detached' });
  await lobby.evaluate(() => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  // Ana moves (in her game tab); the hidden lobby's title drops to no count...
  await typeMove(a, (await moves(id, anaKey))[0].notation);
  await turnText(a, 'Waiting for Ben');
  await lobby.waitForFunction(() => !document.title.includes('Your turn'), null, { timeout: 30000 });
  // ...and Ben's move makes it her turn: the hidden tab counts it and notifies.
  await typeMove(b, (await moves(id, benKey))[0].notation);
  await lobby.waitForFunction(() => document.title.startsWith('(1) Your turn'), null, { timeout: 30000 });
  await lobby.waitForFunction(() => window.notified.length > 0, null, { timeout: 30000 });
  result.notified = await lobby.evaluate(() => window.notified);
  result.hiddenTitle = await lobby.title();
  await lobby.close();

  // A banner while the server cannot be reached, gone once it can.
  await ana.setOffline(true);
  const banner = a.getByTestId('offline');
  await banner.waitFor({ state: 'visible', timeout: 45000 });
  await snap(a, 'offline');
  await ana.setOffline(false);
  await banner.waitFor({ state: 'hidden', timeout: 30000 });
  // The browser logs each request that failed while offline: expected here, and only those.
  problems.consoleErrors = problems.consoleErrors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch/.test(e));

  // More moves (by the API, as from another device) to pass move 10.
  for (let i = 0; i < 22; i += 1) {
    const game = await api(`/games/${id}`, anaKey);
    if (game.status !== 'active') break;
    const key = game.to_act[0] === 0 ? anaKey : benKey;
    const list = await moves(id, key);
    if (!list.length) break;
    await apiPost(`/games/${id}/commands`, key, list[i % list.length].command);
  }
  const played = await api(`/games/${id}`, anaKey);
  check(played.view.history.length >= 20, `past move 10: ${played.view.history.length} half-turns`);
  await a.getByTestId('moves').filter({ hasText: played.view.history[played.view.history.length - 1] }).waitFor({ timeout: 30000 });
  // Move numbers of 10 and more are drawn whole: the marker fits in the list's indent.
  result.markerRoom = await a.evaluate(() => {
    const list = document.querySelector('[data-testid="moves"]');
    const style = getComputedStyle(list);
    const probe = document.createElement('span');
    probe.style.font = style.font;
    probe.style.position = 'absolute';
    probe.textContent = '10. ';
    document.body.append(probe);
    const need = probe.getBoundingClientRect().width;
    probe.remove();
    return parseFloat(style.paddingLeft) - need;
  });
  check(result.markerRoom > 0, `the list's indent holds "10. " (room ${result.markerRoom} px)`);
  await snap(a, 'moves-past-ten');

  // Replay: the move list is clickable, marks its step, and the arrows step move by move.
  const r = await ana.newPage();
  await r.goto(`${BASE}/#/replay/${id}`);
  const list = r.getByTestId('replay-moves');
  await list.locator('button[aria-current="step"]').waitFor();
  const steps = await list.locator('button.step').evaluateAll((els) => els.map((e) => ({ version: Number(e.dataset.version), text: e.textContent })));
  const events = (await api(`/games/${id}/events?after=0&limit=1000`, anaKey)).events;
  const moveVersions = events.filter((e) => e.type === 'game.turn_played').map((e) => e.version);
  check(steps.length >= moveVersions.length, `a step for each move: ${steps.length} steps, ${moveVersions.length} moves`);
  check(steps.every((st) => !/game\.|turn played|seat \d/.test(st.text)), `steps in players' words: ${steps.slice(0, 4).map((st) => st.text).join(' | ')}`);
  check(steps.some((st) => st.text.includes('Ana:')) && steps.some((st) => st.text.includes('Ben:')), 'steps name the players');
  const pick = steps[5];
  await list.locator(`button.step[data-version="${pick.version}"]`).click();
  await r.waitForFunction((v) => document.getElementById('main').dataset.version === String(v), pick.version);
  check(await list.locator('button[aria-current="step"]').getAttribute('data-version') === String(pick.version), 'the clicked move is marked');
  const at = await api(`/games/${id}/states/${pick.version}`, anaKey);
  check(await drawnPlacement(r) === at.view.placement, 'the board is the state of the clicked move');
  await r.keyboard.press('ArrowRight');
  await r.waitForFunction((v) => document.getElementById('main').dataset.version === String(v), steps[6].version);
  await r.keyboard.press('ArrowLeft');
  await r.keyboard.press('ArrowLeft');
  await r.waitForFunction((v) => document.getElementById('main').dataset.version === String(v), steps[4].version);
  check(steps[6].version - steps[5].version >= 1 && steps.slice(1).every((st, i) => st.version > steps[i].version), 'steps go forward');
  const line = await r.getByTestId('event-line').textContent();
  check(!/game\.|turn played/.test(line) && /Ana|Ben/.test(line), `the replay line is in players' words: ${line}`);
  result.replaySteps = steps.length;
  result.unnamed.replay = await unnamedControls(r);
  await snap(r, 'replay-moves');
  await r.close();

  // Ben resigns: the result names the players.
  await b.locator('[data-command="resign-ask"]').click();
  await b.locator('[data-command="resign"]').click();
  await turnText(a, 'Ana won: Ben resigned');
  const resultLine = await a.getByTestId('result').textContent();
  check(/Ana wins: Ben resigned/.test(resultLine), `the board's result names them: ${resultLine}`);
  result.final = await a.getByTestId('turn').textContent();
  result.game = id;
  result.superseded = old;

});
