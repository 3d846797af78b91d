// A record broken at a half-turn, as an auditor meets it: pasted on the import page, refused
// with the error beside the broken half-turn (its number, its text as written, the reason and
// the position before it), then imported up to it with the page's own offer; the replay marks
// where the game stops and why, the game page says it, the audit passes, and the exported
// record keeps the original's comments and glyphs and says where it broke. The record's text
// is shown as text, never as markup. Screenshots at 1280 and 375 px.
// Prints one line `RESULT {json}` for the Rust test.

import { readFileSync } from 'node:fs';
import {
  BASE, context, unnamedControls, drawnPlacement, check, problems, signUp, run, snapper,
} from './lib.mjs';

const result = { screenshots: [], overflow: {}, unnamed: {} };
const snap = snapper(result);

// Half-turn 5 is no move at all, and looks like markup.
const BROKEN = [
  '[White "Betza"]',
  '[Black "Castelli"]',
  '1. e4/a6! Nf6/a3 {developing}',
  '2. e5/h6 Nd5/h3?!',
  '3. <b>Ke3</b>/b6 e6/b3',
  '4. Bc4/c6 Bc5/d3',
  '1-0',
  '',
].join('\n');

await run(result, async (browser) => {
  const ctx = await context(browser, 'auditor');
  const page = await ctx.newPage();
  await signUp(page, 'Auditor');
  await page.goto(`${BASE}/#/import`);
  await page.getByLabel('Record').fill(BROKEN);
  await page.getByRole('button', { name: 'Import', exact: true }).click();

  // Refused, with the error beside the half-turn.
  const shown = page.getByTestId('record-break');
  await shown.waitFor();
  const text = await shown.innerText();
  check(text.includes('Half-turn 5'), `the broken half-turn's number: ${text}`);
  check(text.includes('<b>Ke3</b>/b6'), `its text as written, as text: ${text}`);
  check(await page.locator('[data-testid="import-problem"] b').count() === 0, 'no markup from the record');
  const fen = (await shown.locator('code.fen').textContent()).trim();
  check(fen.split(' ')[1] === 'w', `the position before it, White to move: ${fen}`);
  const offer = page.getByTestId('import-up-to');
  check((await offer.textContent()).includes('up to half-turn 4'), 'the offer names the last half-turn kept');
  result.unnamed.import = await unnamedControls(page);
  await snap(page, 'import-broken');

  // Imported up to it: the replay marks where the game stops.
  await offer.click();
  await page.waitForURL((url) => url.hash.startsWith('#/replay/'));
  const id = decodeURIComponent(page.url().split('#/replay/')[1].split('/')[0]);
  result.game = id;
  await page.locator('.board').waitFor();
  await page.locator('[data-testid="audit"][data-valid="true"]').waitFor();
  const mark = page.getByTestId('record-break');
  await mark.waitFor();
  const marked = await mark.textContent();
  check(marked.includes('The record breaks at half-turn 5 (<b>Ke3</b>/b6)'), `the replay's mark: ${marked}`);
  check(await page.locator('.replay-moves b').count() === 0, 'no markup in the move list');
  check(await drawnPlacement(page) === fen.split(' ')[0], 'the game ends on the position before the break');
  const head = await page.locator('.game-head').textContent();
  check(head.includes('Over: the record breaks at half-turn 5'), `the replay's head says it: ${head}`);
  // Stepping onto the mark shows the board where the game stops and says why.
  await mark.locator('button').click();
  await page.getByTestId('event-line').filter({ hasText: 'The record breaks at half-turn 5' }).waitFor();
  result.unnamed.replay = await unnamedControls(page);
  await snap(page, 'replay-broken');

  // The exported record keeps the comments and glyphs before the break, and says where it broke.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  const record = readFileSync(await download.path(), 'utf8');
  check(record.includes('1. e4/a6! Nf6/a3 {developing}\n2. e5/h6 Nd5/h3?! {the record breaks at half-turn 5'), `the export: ${record}`);
  check(record.trimEnd().endsWith('*'), 'no result for a broken record');
  result.record = record;

  // The game page says it too, in the players' words.
  await page.goto(`${BASE}/#/game/${id}`);
  const turn = page.getByTestId('turn');
  await turn.filter({ hasText: 'the record breaks at half-turn 5' }).waitFor();
  result.gameTurn = await turn.textContent();
  result.unnamed.game = await unnamedControls(page);
  await snap(page, 'game-broken');

  // The refusal of the broken record is what this test asks for: Chromium logs that 422 as a
  // failed resource; that one line (and no other) is expected.
  const refusal = (line) => line.includes('status of 422') && line.includes('/v1/imports');
  result.refusalsLogged = problems.consoleErrors.filter(refusal).length;
  check(result.refusalsLogged === 1, `one refused import logged: ${problems.consoleErrors}`);
  problems.consoleErrors = problems.consoleErrors.filter((line) => !refusal(line));
});
