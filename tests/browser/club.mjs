// The club in a real browser: Ann finds Bo by name in the lobby's waiting room and challenges
// him to a rated game; Bo sees the challenge in his waiting room and accepts it, which starts
// the game; Bo resigns from the page, which offers a rematch; both players' pages show their
// ratings moved (Ann up, Bo down) with a chart drawn by the page, and the game linked to its
// replay. Then Ann invites Bo by name from the page of a new open game (he is mailed its link:
// the server writes its mail into MAIL_DIR, where Bo's confirmation code is read too). axe-core
// on the lobby with its waiting room, the open game's page and a player's page. Screenshots at
// 1280 and 375 px. Prints one line `RESULT {json}` for the Rust test.

import { readdirSync, readFileSync } from 'node:fs';
import { BASE, context, unnamedControls, api, apiPost, check, signUp, run, snapper, axeViolations } from './lib.mjs';

const result = { screenshots: [], overflow: {}, unnamed: {}, axe: {} };
const snap = snapper(result);

await run(result, async (browser) => {
  // Ann's pages take axe-core's script (from the lock file's package, added by the test).
  const annCtx = await context(browser, 'ann', undefined, { options: { bypassCSP: true } });
  const boCtx = await context(browser, 'bo');
  const ann = await annCtx.newPage();
  const bo = await boCtx.newPage();
  const annKey = await signUp(ann, 'Ann');
  const boKey = await signUp(bo, 'Bo');
  const annId = (await api('/players/me', annKey)).id;
  const boMe = await api('/players/me', boKey);

  // Ann finds Bo by name and challenges him.
  await ann.goto(`${BASE}/#/`);
  const room = ann.getByTestId('waiting-room');
  await room.getByLabel('Name').fill('bo');
  await room.getByRole('button', { name: 'Find' }).click();
  const found = room.getByTestId('found-player');
  await found.first().waitFor();
  check(await found.count() === 1, 'one player found by "bo"');
  check((await found.first().textContent()).includes(boMe.display_name), 'found by his display name');
  await found.first().getByRole('button', { name: `Challenge ${boMe.display_name}` }).click();
  await room.getByTestId('challenge').first().waitFor();
  result.unnamed.lobby = await unnamedControls(ann);
  result.axe.lobby = (await axeViolations(ann)).violations;
  await snap(ann, 'club-waiting-room');

  // Bo accepts it from his waiting room: the game starts.
  await bo.goto(`${BASE}/#/`);
  const accept = bo.getByTestId('waiting-room').getByTestId('accept-challenge');
  await accept.first().waitFor();
  await accept.first().click();
  await bo.waitForURL(/#\/game\//);
  const game = decodeURIComponent(bo.url().split('#/game/')[1]);
  const summary = await api(`/games/${game}`);
  check(summary.rated === true && summary.status === 'active', `a rated game started: ${JSON.stringify(summary.status)}`);

  // Bo resigns from the page; the end offers a rematch.
  await bo.locator('[data-command="resign-ask"]').click();
  await bo.locator('[data-command="resign"]').click();
  await bo.getByTestId('rematch').waitFor();
  await snap(bo, 'club-game-end');

  // Both pages show the ratings moved, with their charts.
  const ratingOf = async (page, id) => {
    await page.goto(`${BASE}/#/player/${id}`);
    await page.getByTestId('rating-chart').first().waitFor();
    return (await page.getByTestId('rating-value').first().textContent()).trim();
  };
  const annRating = await ratingOf(ann, annId);
  result.unnamed.player = await unnamedControls(ann);
  check(annRating.startsWith('1662'), `Ann's rating went up: ${annRating}`);
  check(await ann.getByTestId('player-game').count() >= 1, 'her games are listed');
  const replayLink = await ann.getByTestId('player-games').getByRole('link').first().getAttribute('href');
  check(replayLink === `#/replay/${game}`, `the finished game links to its replay: ${replayLink}`);
  result.axe.player = (await axeViolations(ann)).violations;
  await snap(ann, 'club-player');
  const boRating = await ratingOf(bo, boMe.id);
  check(boRating.startsWith('1338'), `Bo's rating went down: ${boRating}`);
  result.ratings = { ann: annRating, bo: boRating };

  // Bo confirms a mail address with the code mailed to him.
  const address = 'bo@players.test';
  const put = await fetch(`${BASE}/v1/players/me/email`, {
    method: 'PUT', headers: { authorization: `Bearer ${boKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ address }),
  });
  check(put.status === 202, `Bo's address taken: ${put.status}`);
  const mailTo = (to, subject) => readdirSync(process.env.MAIL_DIR).filter((f) => f.endsWith('.eml'))
    .map((f) => readFileSync(`${process.env.MAIL_DIR}/${f}`, 'utf8'))
    .find((m) => m.includes(to) && subject.test(m));
  let code;
  for (let i = 0; i < 100 && !code; i += 1) {
    const mail = mailTo(address, /code/i);
    code = mail && (mail.match(/^Subject: .* (\d{6})\r?$/m) || [])[1];
    if (!code) await new Promise((r) => setTimeout(r, 100));
  }
  check(code, 'the confirmation code mailed to Bo');
  await apiPost('/players/me/email/confirm', boKey, { code });

  // Ann opens a new game and invites Bo by name from its page.
  const open = (await apiPost('/games', annKey, { kind: 'avalanche-chess', seats: 2 })).id;
  await ann.goto(`${BASE}/#/game/${open}`);
  const invite = ann.getByTestId('invite-by-name');
  await invite.getByLabel('Name').fill('b');
  await invite.getByRole('button', { name: 'Find' }).click();
  const button = invite.getByRole('button', { name: `Invite ${boMe.display_name}` });
  await button.waitFor();
  await button.click();
  await ann.locator('#status', { hasText: `${boMe.display_name} is invited.` }).waitFor();
  result.unnamed.invite = await unnamedControls(ann);
  result.axe.game = (await axeViolations(ann)).violations;
  await snap(ann, 'club-invite');
  result.invited = open;
});
