// The club in a real browser: Ann finds Bo by name in the lobby's waiting room and challenges
// him to a rated game; Bo sees the challenge in his waiting room and accepts it, which starts
// the game; Bo resigns from the page, which offers a rematch; both players' pages show their
// ratings moved (Ann up, Bo down) with a chart drawn by the page, and the game linked to its
// replay. Screenshots at 1280 and 375 px. Prints one line `RESULT {json}` for the Rust test.

import { BASE, context, unnamedControls, api, check, signUp, run, snapper } from './lib.mjs';

const result = { screenshots: [], overflow: {}, unnamed: {} };
const snap = snapper(result);

await run(result, async (browser) => {
  const annCtx = await context(browser, 'ann');
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
  await snap(ann, 'club-player');
  const boRating = await ratingOf(bo, boMe.id);
  check(boRating.startsWith('1338'), `Bo's rating went down: ${boRating}`);
  result.ratings = { ann: annRating, bo: boRating };
});
