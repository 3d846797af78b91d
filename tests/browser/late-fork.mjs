// An agreed takeback whose game that goes on the server could not write at once (its store
// refused new games for a while, as the Rust test makes it): both players' pages say the game
// was taken back and that the game that goes on is still being set up, then move on to it by
// themselves once the server has written it. The script and the Rust test take turns through
// empty files in the directory SYNC: the script writes `asked` once the takeback waits for
// Ben's answer and waits for `refusing`; it writes `noticed` once both pages say the game
// that goes on is coming, and the test lets the store take it again.
// Prints one line `RESULT {json}` for the Rust test.

import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BASE, context, unnamedControls, api, apiPost, check, signUp, run, snapper,
} from './lib.mjs';

const SYNC = process.env.SYNC;
check(SYNC, 'SYNC names the directory shared with the Rust test');
const result = { screenshots: [], overflow: {}, unnamed: {} };
const snap = snapper(result);
const say = (file) => writeFileSync(join(SYNC, file), '');
async function heard(file) {
  for (let tries = 0; tries < 600 && !existsSync(join(SYNC, file)); tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  check(existsSync(join(SYNC, file)), `the test wrote ${file} within a minute`);
}

await run(result, async (browser) => {
  const ana = await context(browser, 'ana');
  const ben = await context(browser, 'ben');
  const a = await ana.newPage();
  const b = await ben.newPage();
  const anaKey = await signUp(a, 'Ana');
  const benKey = await signUp(b, 'Ben');
  const { id } = await apiPost('/games', anaKey, { kind: 'avalanche-chess', seats: 2 });
  await apiPost(`/games/${id}/join`, benKey, {});
  // A move each, then Ana asks to take hers back.
  for (const key of [anaKey, benKey, anaKey]) {
    const legal = await api(`/games/${id}/legal`, key);
    await apiPost(`/games/${id}/commands`, key, legal.commands.find((l) => l.command.type === 'turn').command);
  }
  await apiPost(`/games/${id}/commands`, anaKey, { type: 'request_takeback' });
  for (const page of [a, b]) {
    await page.goto(`${BASE}/#/game/${id}`);
    await page.evaluate(() => { window.noReload = true; });
  }
  await b.locator('[data-command="accept_takeback"]').waitFor({ timeout: 30000 });
  say('asked');
  await heard('refusing');

  // Ben accepts: the takeback is agreed, and the game that goes on cannot be written yet.
  await b.locator('[data-command="accept_takeback"]').click();
  for (const [page, who] of [[a, 'Ana'], [b, 'Ben']]) {
    await page.getByTestId('continuation-coming').waitFor({ timeout: 30000 });
    check((await page.getByTestId('turn').textContent()).includes('Taken back'), `${who}'s page says "taken back"`);
  }
  const coming = await api(`/games/${id}`, anaKey);
  check(coming.superseded === true && !coming.continued_in, `the server names no continuation yet: ${JSON.stringify(coming.continued_in)}`);
  await snap(a, 'takeback-fork-coming');
  result.unnamed.coming = await unnamedControls(a);
  say('noticed');

  // The store takes it again: both pages move on to the game that goes on by themselves.
  for (const [page, who] of [[a, 'Ana'], [b, 'Ben']]) {
    await page.waitForFunction((old) => {
      const shown = document.getElementById('main').dataset.game;
      return shown && shown !== old;
    }, id, { timeout: 60000 });
    check(await page.evaluate(() => window.noReload === true), `${who}'s page moved on without a reload`);
  }
  const old = await api(`/games/${id}`, anaKey);
  check(typeof old.continued_in === 'string', 'the server names the continuation');
  for (const [page, who] of [[a, 'Ana'], [b, 'Ben']]) {
    check(page.url().endsWith(`#/game/${old.continued_in}`), `${who}'s page is at the continuation: ${page.url()}`);
  }
  await a.getByTestId('turn').filter({ hasText: 'Your turn' }).waitFor({ timeout: 30000 });
  await snap(a, 'takeback-fork-written');
  result.superseded = id;
  result.game = old.continued_in;
});
