// A push that loses at once is said before it is sent: Ana walks her king up the board (her
// moves and Ben's over the API) until the game names one of her pushes a loss; typed in the
// move box, it is not played but shown with its consequence and a choice (play it anyway, or
// cancel); the game is still at the same version. Screenshots at 1280 and 375 px.
// Prints one line `RESULT {json}` for the Rust test.

import {
  BASE, context, unnamedControls, api, apiPost, check, signUp, run, snapper,
} from './lib.mjs';

const result = { screenshots: [], overflow: {}, unnamed: {}, moves: [] };
const snap = snapper(result);
const turns = (legal) => legal.commands.filter((l) => l.command.type === 'turn');
const rank = (notation) => Number((notation.split('/')[0].match(/[1-8]/g) || ['0']).pop());

await run(result, async (browser) => {
  const ana = await context(browser, 'ana');
  const a = await ana.newPage();
  const anaKey = await signUp(a, 'Ana');
  const ben = await context(browser, 'ben');
  const b = await ben.newPage();
  const benKey = await signUp(b, 'Ben');
  const { id } = await apiPost('/games', anaKey, { kind: 'avalanche-chess', seats: 2 });
  await apiPost(`/games/${id}/join`, benKey, {});
  let losing = null;
  for (let move = 0; move < 12 && !losing; move += 1) {
    const mine = turns(await api(`/games/${id}/legal`, anaKey));
    losing = mine.find((l) => l.consequence && l.consequence.loses);
    if (losing) break;
    // The e-pawn first, then the king forward, as far up the board as it may go.
    const kings = mine.filter((l) => l.notation.startsWith('K')).sort((x, y) => rank(y.notation) - rank(x.notation));
    const pick = move === 0 ? mine.find((l) => l.notation.startsWith('e4/')) : kings[0] || mine[0];
    result.moves.push(pick.notation);
    await apiPost(`/games/${id}/commands`, anaKey, pick.command);
    // Ben moves a knight back and forth.
    const his = turns(await api(`/games/${id}/legal`, benKey));
    const knight = his.find((l) => l.notation.startsWith('N') && !l.notation.includes('x')) || his[0];
    result.moves.push(knight.notation);
    await apiPost(`/games/${id}/commands`, benKey, knight.command);
  }
  check(losing, 'a push that loses at once came within twelve moves');
  result.losing = losing.notation;
  result.says = losing.consequence.says;
  const before = (await api(`/games/${id}`, anaKey)).version;

  await a.goto(`${BASE}/#/game/${id}`);
  await a.getByTestId('move-input').fill(losing.notation);
  await a.getByRole('button', { name: 'Play it' }).click();
  const warning = a.getByTestId('losing-warning');
  await warning.waitFor({ timeout: 20000 });
  const text = await warning.textContent();
  check(text.includes(losing.notation) && text.includes(losing.consequence.says), `the warning names the move and its consequence: ${text}`);
  result.warning = text;
  await snap(a, 'losing-push-warning');
  result.unnamed.warning = await unnamedControls(a);
  const after = (await api(`/games/${id}`, anaKey)).version;
  check(after === before, `nothing was played before the answer (version ${before}, now ${after})`);
  await a.getByRole('button', { name: 'Cancel' }).click();
  check(await warning.isHidden(), 'Cancel closes the warning');
  result.version = after;
  result.game = id;
});
