// Words at a game of Avalanche Chess in a real browser: Ana and Ben, each in their own browser,
// talk beside the table; each sees the other's message arrive with an unread count, which
// goes once they read it; text that looks like markup is shown as text; a message goes with a
// move; Ana deletes one of hers and both threads say so; a watcher speaks in the spectators'
// room, which the players never see; Ben reports one of Ana's messages and then mutes her from
// the page; the replay shows each message at its place. Screenshots
// at 1280 and 375 px. Prints one line `RESULT {json}` for the Rust test.

import { BASE, context, unnamedControls, api, apiPost, check, signUp, run, snapper } from './lib.mjs';

const result = { screenshots: [], overflow: {}, unnamed: {} };
const snap = snapper(result);

/** The texts of a page's thread, in order. */
const thread = (page) => page.getByTestId('thread').getByTestId('said').allInnerTexts();
const waitFor = async (page, what, test) => {
  for (let i = 0; i < 100; i += 1) {
    const seen = await thread(page);
    if (test(seen)) return seen;
    await page.waitForTimeout(100);
  }
  throw new Error(`${what}: the thread shows ${JSON.stringify(await thread(page))}`);
};

await run(result, async (browser) => {
  const anaCtx = await context(browser, 'ana');
  const benCtx = await context(browser, 'ben');
  const cleoCtx = await context(browser, 'cleo');
  const ana = await anaCtx.newPage();
  const ben = await benCtx.newPage();
  const cleo = await cleoCtx.newPage();
  const anaKey = await signUp(ana, 'Ana');
  const benKey = await signUp(ben, 'Ben');
  await signUp(cleo, 'Cleo');
  const game = (await apiPost('/games', anaKey, { kind: 'avalanche-chess', seats: 2 })).id;
  await apiPost(`/games/${game}/join`, benKey, {});
  result.game = game;
  for (const page of [ana, ben]) {
    await page.goto(`${BASE}/#/game/${game}`);
    await page.getByTestId('message-input').waitFor();
  }
  check((await ben.getByTestId('thread').innerText()).includes('Nothing said yet.'), 'an empty thread says so');

  // Ana speaks; markup in her text stays text.
  await ana.getByTestId('message-input').fill('Good luck! <b>Away</b> this weekend.');
  await ana.getByRole('button', { name: 'Send' }).click();
  await waitFor(ana, 'Ana sees her message', (t) => t.length === 1);
  check(!(await ana.getByTestId('unread').isVisible()), 'her own message is no unread one for Ana');
  // Ben's page hears it live, with an unread count.
  const benSaw = await waitFor(ben, "Ben sees Ana's message", (t) => t.length === 1);
  check(benSaw[0].startsWith('Ana') && benSaw[0].includes('Good luck! <b>Away</b> this weekend.'), `as text: ${benSaw[0]}`);
  check(await ben.locator('.thread b:has-text("Away")').count() === 0, 'no markup from a message');
  await ben.getByTestId('unread').waitFor();
  result.benUnread = await ben.getByTestId('unread').innerText();
  check(await ben.getByTestId('thread').getByRole('button', { name: 'Delete' }).count() === 0, "no Delete on another's message");
  await snap(ben, 'messages-unread');

  // Ben reads it (the box takes the focus) and answers on two lines.
  await ben.getByTestId('message-input').focus();
  await ben.getByTestId('unread').waitFor({ state: 'hidden' });
  await ben.getByTestId('message-input').fill('Thanks, you too.\nI will play on Monday.');
  await ben.getByRole('button', { name: 'Send' }).click();
  await waitFor(ana, "Ana sees Ben's answer", (t) => t.length === 2);
  await ana.getByTestId('unread').waitFor();
  result.anaUnread = await ana.getByTestId('unread').innerText();

  // A message with a move: played with the command (its body's `message`).
  const acting = (await api(`/games/${game}`)).to_act[0];
  const mover = (await api(`/games/${game}`, anaKey)).your_seat === acting ? anaKey : benKey;
  const move = (await api(`/games/${game}/legal`, mover)).commands.find((c) => c.command.type !== 'resign' && !c.command.type.includes('draw')).command;
  await apiPost(`/games/${game}/commands`, mover, { ...move, message: 'There is my first move.' });
  result.moveVersion = (await api(`/games/${game}`)).version;
  await waitFor(ana, 'the message with the move', (t) => t.length === 3);
  await waitFor(ben, 'the message with the move', (t) => t.length === 3);
  result.unnamed.game = await unnamedControls(ana);
  await ana.getByTestId('message-input').focus();
  await snap(ana, 'messages-game');

  // A watcher speaks in the spectators' room; the players never see it.
  await cleo.goto(`${BASE}/#/game/${game}`);
  await cleo.getByTestId('spectator').waitFor();
  await cleo.getByTestId('message-input').fill('What an opening.');
  await cleo.getByRole('button', { name: 'Send' }).click();
  const cleoSaw = await waitFor(cleo, 'Cleo sees the table and her room', (t) => t.length === 4);
  check(cleoSaw[3].startsWith('A watcher') && cleoSaw[3].includes('What an opening.'), `the room: ${cleoSaw[3]}`);
  await snap(cleo, 'messages-watcher');

  // Ben reports Ana's first message from his page: the server takes it, the page says so.
  await ben.getByTestId('thread').getByRole('button', { name: /^Report this message of Ana/ }).first().click();
  await ben.locator('#status', { hasText: 'Reported to the operator.' }).waitFor();

  // Ana deletes her first message: both threads say it was deleted.
  await ana.getByTestId('thread').getByRole('button', { name: 'Delete' }).first().click();
  const anaAfter = await waitFor(ana, 'deleted for Ana', (t) => t[0].includes('deleted'));
  const benAfter = await waitFor(ben, 'deleted for Ben', (t) => t[0].includes('deleted'));
  check(anaAfter.length === 3 && benAfter.length === 3, `the players never see the room: ${JSON.stringify(benAfter)}`);
  check(!benAfter.join('\n').includes('Good luck'), 'the deleted text is gone');
  result.benThread = benAfter;

  // The replay shows each message at its place: at the move, the message said with it.
  await ben.goto(`${BASE}/#/replay/${game}/${result.moveVersion}`);
  await ben.locator('.board').waitFor();
  await ben.locator(`main[data-version="${result.moveVersion}"]`).waitFor();
  const replayed = await thread(ben);
  check(replayed.length === 3 && replayed[2].includes('There is my first move.'), `the replay at the move: ${JSON.stringify(replayed)}`);
  check(await ben.locator('.thread .now').count() === 1, 'the message said at this version is marked');
  result.replayAtMove = replayed;
  result.unnamed.replay = await unnamedControls(ben);
  await snap(ben, 'messages-replay');
  await ben.getByRole('button', { name: 'First move' }).click();
  await ben.locator('main[data-step="0"]').waitFor();
  result.replayAtStart = await thread(ben);

  // Ben mutes Ana from the game page: her words leave his thread, his own stay; the server
  // keeps the mute. Ana, unmuted by nobody, still reads Ben.
  await ben.goto(`${BASE}/#/game/${game}`);
  await waitFor(ben, 'the thread again', (t) => t.length === 3);
  check(await ben.getByTestId('thread').getByRole('button', { name: /^Mute Ben/ }).count() === 0, 'no Mute on his own words');
  await ben.getByTestId('thread').getByRole('button', { name: /^Mute Ana/ }).first().click();
  await ben.locator('#status', { hasText: 'you no longer see their messages' }).waitFor();
  const muted = await waitFor(ben, "Ana's words gone for Ben", (t) => t.every((x) => !x.startsWith('Ana')));
  check(muted.some((x) => x.includes('I will play on Monday.')), `Ben's own words stay: ${JSON.stringify(muted)}`);
  result.benMuted = muted;
  const anaId = (await api('/players/me', anaKey)).id;
  result.anaId = anaId;
  check((await api('/players/me/mutes', benKey)).muted.includes(anaId), 'the server keeps the mute');
  await snap(ben, 'messages-muted');
});
