// axe-core (pinned in package-lock.json) on every page of the client, in the light and the dark
// colour scheme: the account page, the lobby with games in it, a running game of each kind
// (Avalanche Chess with a piece chosen), a finished game, the replay, the import page and a
// missing page. Any serious or critical violation is reported with its rule and elements,
// including those of the rule outside axe's default set that a control's name holds its
// visible text (label-content-name-mismatch: Altitude's "Return" cards, Vamanos's pile).
// Prints one line `RESULT {json}` for the Rust test.

import { BASE, context, api, apiPost, check, axeViolations, secret, shot, run } from './lib.mjs';

const result = { pages: {}, violations: {}, nameHoldsText: [], screenshots: [], overflow: {} };

async function player(name) {
  const res = await fetch(`${BASE}/v1/players`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  const body = await res.json();
  secret(body.token);
  return body.token;
}

/** A full game of `kind` for Ana and Ben (and Cleo for three seats); its id. */
async function game(kind, seats, ana, ben, cleo) {
  const created = await apiPost('/games', ana, { kind, seats });
  await apiPost(`/games/${created.id}/join`, ben, {});
  if (seats > 2) await apiPost(`/games/${created.id}/join`, cleo, {});
  return created.id;
}

await run(result, async (browser) => {
  const ana = await player('Ana');
  const ben = await player('Ben');
  const cleo = await player('Cleo');
  const kinds = (await api('/kinds')).items;
  const games = {};
  for (const k of kinds) {
    const seats = Math.max(2, k.min_seats);
    if (seats <= 3 && k.max_seats >= 2) games[k.id] = await game(k.id, seats, ana, ben, cleo);
  }
  // A finished chess game (Ben resigns) and an open one.
  const finished = await game('avalanche-chess', 2, ana, ben, cleo);
  await apiPost(`/games/${finished}/commands`, ben, { type: 'resign' });
  const open = (await apiPost('/games', ben, { kind: 'avalanche-chess', seats: 2 })).id;

  for (const scheme of ['light', 'dark']) {
    const ctx = await context(browser, `axe-${scheme}`, { width: scheme === 'light' ? 1280 : 375, height: 900 }, { options: { bypassCSP: true, colorScheme: scheme } });
    const page = await ctx.newPage();
    const visit = async (name, hash, ready, before) => {
      await page.goto(`${BASE}/${hash}`);
      await page.locator(ready).first().waitFor({ timeout: 20000 });
      if (before) await before();
      await page.waitForTimeout(150);
      // Every rule of the default set, and the name/visible-text rule outside it, must pass.
      const { violations: found, applied } = await axeViolations(page);
      result.pages[`${scheme}:${name}`] = found.length;
      if (found.length) result.violations[`${scheme}:${name}`] = found;
      if (applied.includes('label-content-name-mismatch')) result.nameHoldsText.push(`${scheme}:${name}`);
    };
    await visit('account', '#/account', 'form');
    await page.evaluate((t) => localStorage.setItem('avalanche.token', t), ana);
    await visit('lobby', '#/', '[data-testid="my-games"]');
    await visit('account-signed-in', '#/account', '[data-testid="me"]');
    for (const [kind, id] of Object.entries(games)) {
      // The table's own controls come with its view, a moment after the turn line: waited for
      // where Ana has any (under load the rules below otherwise ran before they were there).
      await visit(`game-${kind}`, `#/game/${id}`, '[data-testid="turn"]', () =>
        page.locator('[data-command]').first().waitFor({ timeout: 5000 }).catch(() => {}));
      // Each table as Ana sees it: light at 1280 px, dark at 375 px.
      const width = scheme === 'light' ? 1280 : 375;
      const s = await shot(page, `axe-${kind}-${scheme}-${width}.png`, width);
      result.screenshots.push(s.path);
      result.overflow[`${kind}-${scheme}-${width}`] = s.overflow;
    }
    await visit('game-chess-piece-chosen', `#/game/${games['avalanche-chess']}`, '.board', async () => {
      await page.locator('.board [data-square="g1"]').click();
      await page.locator('.board .target').first().waitFor();
    });
    await visit('game-open', `#/game/${open}`, '[data-testid="turn"]');
    await visit('game-finished', `#/game/${finished}`, '[data-testid="result"]');
    await visit('replay', `#/replay/${finished}`, '[data-testid="replay-moves"]');
    await visit('import', '#/import', 'textarea');
    await visit('not-found', '#/nowhere', 'h1');
    await page.evaluate(() => localStorage.clear());
    await visit('spectator', `#/game/${games['avalanche-chess']}`, '[data-testid="spectator"]');
    await ctx.close();
  }
  check(Object.keys(result.pages).length >= 20, `pages checked: ${Object.keys(result.pages).join(', ')}`);
});
