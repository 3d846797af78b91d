// A tournament in a real browser: Ann creates a round robin of four (over the API); Ben finds it
// in the tournaments list, joins from its page, withdraws and joins again; Ann joins from the
// page and starts it there; Cy and Di enter over the API. Every game is ended over the API by a
// rule fixed here (Ann beats everyone, Ben draws with Cy and beats Di, Di beats Cy), so the
// crosstable the page draws is checked cell by cell against what was played, mid-event and at
// the end, and each finished game's link opens its replay. axe-core on the tournament page.
// Then a Swiss of the four over two rounds, whose crosstable has a column a round. The standings
// name their tie-breaks (Sonneborn-Berger and head-to-head; Buchholz).
// Screenshots at 1280 and 375 px. Prints one line `RESULT {json}` for the Rust test.

import {
  BASE, context, unnamedControls, api, apiPost, check, signUp, newPlayer, run, snapper, axeViolations,
} from './lib.mjs';

const result = { screenshots: [], overflow: {}, unnamed: {}, axe: {}, games: 0 };
const snap = snapper(result);

// Who wins a game between two of the four, by first name: 1 for the first, 0 for the second,
// 0.5 for a draw.
const beats = { Ann: 3, Ben: 2, Di: 1, Cy: 0 };
function score(a, b) {
  if ((a === 'Ben' && b === 'Cy') || (a === 'Cy' && b === 'Ben')) return 0.5;
  return beats[a] > beats[b] ? 1 : 0;
}
const shown = (v) => (v === 0.5 ? '½' : String(v));

/** Ends game `game` between `seats` (tokens in seat order) as `score` says for their names. */
async function finish(game, seats, names) {
  const legal = await api(`/games/${game}/legal`, seats[0]);
  const move = legal.commands.find((l) => l.command.type === 'turn');
  check(move, `a first move in ${game}`);
  await apiPost(`/games/${game}/commands`, seats[0], move.command);
  const first = score(names[0], names[1]);
  if (first === 0.5) {
    await apiPost(`/games/${game}/commands`, seats[1], { type: 'offer_draw' });
    await apiPost(`/games/${game}/commands`, seats[0], { type: 'accept_draw' });
  } else {
    await apiPost(`/games/${game}/commands`, seats[first === 1 ? 1 : 0], { type: 'resign' });
  }
  result.games += 1;
}

/** The crosstable as the page draws it: per row, the player's name and every cell's text. */
async function drawnCrosstable(page) {
  return page.getByTestId('crosstable').evaluate((table) => [...table.querySelectorAll('tbody tr')]
    .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())));
}

/** Checks every row of the page's crosstable against the games in `played` (pairs of names). */
function checkCrosstable(rows, played) {
  const order = rows.map((r) => r[1].split(' #')[0]);
  check(order.length === 4, `four rows: ${JSON.stringify(rows)}`);
  rows.forEach((row, i) => {
    const me = order[i];
    let total = 0;
    order.forEach((them, j) => {
      const cell = row[2 + j];
      if (i === j) { check(cell === '×', `the diagonal: ${cell}`); return; }
      const met = played.some(([a, b]) => (a === me && b === them) || (a === them && b === me));
      const want = met ? shown(score(me, them)) : '';
      if (met) total += score(me, them);
      check(cell === want, `${me} against ${them}: the page shows "${cell}", the games say "${want}"`);
    });
    const points = row[2 + order.length];
    check(points === (total === 0.5 ? '½' : String(total).replace('.5', '½')), `${me}'s points: ${points}, played ${total}`);
  });
  return order;
}

await run(result, async (browser) => {
  const annCtx = await context(browser, 'ann', undefined, { options: { bypassCSP: true } });
  const benCtx = await context(browser, 'ben');
  const ann = await annCtx.newPage();
  const ben = await benCtx.newPage();
  const tokens = { Ann: await signUp(ann, 'Ann'), Ben: await signUp(ben, 'Ben'), Cy: await newPlayer('Cy'), Di: await newPlayer('Di') };
  const byId = {};
  for (const [name, token] of Object.entries(tokens)) byId[(await api('/players/me', token)).id] = name;

  const created = await apiPost('/tournaments', tokens.Ann, {
    name: 'Winter round robin', kind: 'avalanche-chess', format: 'round_robin', seats: 2,
    entry_until: '2100-01-01T00:00:00Z', min_players: 4, max_players: 8,
  });
  const id = created.id;

  // Ben finds it in the list and enters from its page; withdraws; enters again.
  await ben.goto(`${BASE}/#/tournaments`);
  await ben.getByRole('link', { name: 'Winter round robin' }).click();
  await ben.getByTestId('join').click();
  await ben.getByTestId('withdraw').waitFor();
  check((await api(`/tournaments/${id}`)).players.length === 1, 'Ben has joined');
  await ben.getByTestId('withdraw').click();
  await ben.getByTestId('join').waitFor();
  check((await api(`/tournaments/${id}`)).players.length === 0, 'Ben has withdrawn');
  await ben.getByTestId('join').click();
  await ben.getByTestId('withdraw').waitFor();

  // Ann enters from the page, Cy and Di over the API; Ann starts it from the page.
  await ann.goto(`${BASE}/#/tournament/${id}`);
  await ann.getByTestId('join').click();
  await ann.getByTestId('start').waitFor();
  await apiPost(`/tournaments/${id}/join`, tokens.Cy, {});
  await apiPost(`/tournaments/${id}/join`, tokens.Di, {});
  await ann.getByTestId('start').click();
  await ann.getByTestId('round').first().waitFor();
  result.unnamed.open = await unnamedControls(ann);

  const played = [];
  for (let round = 1; round <= 3; round += 1) {
    let t = await api(`/tournaments/${id}`);
    for (let i = 0; i < 100 && t.rounds_played.length < round; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      t = await api(`/tournaments/${id}`);
    }
    const now = t.rounds_played[round - 1];
    check(now, `round ${round} is paired`);
    for (const table of now.tables) {
      const names = table.players.map((p) => byId[p]);
      await finish(table.game, names.map((n) => tokens[n]), names);
      played.push(names);
    }
    if (round === 1) {
      // Mid-event: round 1 counted on the page, the crosstable partly filled.
      await ann.reload();
      let rows = [];
      for (let i = 0; i < 100; i += 1) {
        rows = await drawnCrosstable(ann);
        if (rows.flat().filter((c) => c !== '' && c !== '×').length > 4) break;
        await new Promise((r) => setTimeout(r, 100));
        await ann.reload();
      }
      result.midway = rows;
      checkCrosstable(rows, played);
      await snap(ann, 'tournament-running');
    }
  }

  let t = await api(`/tournaments/${id}`);
  for (let i = 0; i < 100 && t.status !== 'finished'; i += 1) {
    await new Promise((r) => setTimeout(r, 100));
    t = await api(`/tournaments/${id}`);
  }
  check(t.status === 'finished', `the tournament finished: ${t.status}`);
  await ann.reload();
  await ann.getByText(`Seed ${t.seed}`).waitFor();
  const rows = await drawnCrosstable(ann);
  result.crosstable = rows;
  result.order = checkCrosstable(rows, played);
  check(result.order.join(',') === 'Ann,Ben,Di,Cy', `ranked by points: ${result.order}`);
  result.standings = await ann.getByTestId('standings').evaluate((table) => [...table.querySelectorAll('tbody tr')]
    .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())));
  const tieBreaks = (page) => page.getByTestId('standings').evaluate((table) => [...table.querySelectorAll('thead th')].map((c) => c.textContent).join(','));
  result.heads = await tieBreaks(ann);
  check(result.heads === '#,Player,Points,Sonneborn-Berger,Head-to-head,Games', `a round robin's tie-breaks by name: ${result.heads}`);
  result.unnamed.finished = await unnamedControls(ann);
  result.axe.tournament = (await axeViolations(ann)).violations;
  await snap(ann, 'tournament-finished');

  // A finished game's link opens its replay.
  const link = ann.getByTestId('round').first().getByRole('link').first();
  const href = await link.getAttribute('href');
  check(href.startsWith('#/replay/'), `a finished game links to its replay: ${href}`);
  await link.click();
  await ann.waitForURL(/#\/replay\//);
  await ann.getByTestId('replay-moves').waitFor();
  // The replay's address is #/replay/<game>, then #/replay/<game>/<version> once drawn.
  result.replay = decodeURIComponent(ann.url().split('#/replay/')[1].split('/')[0]);
  check(t.rounds_played[0].tables.some((table) => table.game === result.replay), `the replay is of a round-1 game: ${result.replay}`);
  result.tournament = id;
  result.rounds = t.rounds_played.length;

  // A Swiss of the same four over two rounds: its crosstable has a column a round, each cell
  // the points scored and the line of the one met.
  const swiss = (await apiPost('/tournaments', tokens.Ann, {
    name: 'Spring Swiss', kind: 'avalanche-chess', format: 'swiss', seats: 2, rounds: 2,
    entry_until: '2100-01-01T00:00:00Z', min_players: 4, max_players: 8,
  })).id;
  for (const name of ['Ann', 'Ben', 'Cy', 'Di']) await apiPost(`/tournaments/${swiss}/join`, tokens[name], {});
  await apiPost(`/tournaments/${swiss}/start`, tokens.Ann, {});
  const met = [];
  for (let round = 1; round <= 2; round += 1) {
    let s = await api(`/tournaments/${swiss}`);
    for (let i = 0; i < 100 && s.rounds_played.length < round; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      s = await api(`/tournaments/${swiss}`);
    }
    for (const table of s.rounds_played[round - 1].tables) {
      const names = table.players.map((p) => byId[p]);
      await finish(table.game, names.map((n) => tokens[n]), names);
      met.push([round, ...names]);
    }
  }
  await ann.goto(`${BASE}/#/tournament/${swiss}`);
  await ann.getByText('finished').first().waitFor();
  const heads = await ann.getByTestId('crosstable').evaluate((table) => [...table.querySelectorAll('thead th')].map((c) => c.textContent));
  check(heads.join(',') === '#,Player,R1,R2,Points', `a column a round: ${heads}`);
  const swissRows = await drawnCrosstable(ann);
  const line = Object.fromEntries(swissRows.map((r, i) => [r[1].split(' #')[0], i + 1]));
  for (const row of swissRows) {
    const me = row[1].split(' #')[0];
    for (const round of [1, 2]) {
      const [, a, b] = met.find(([r, x, y]) => r === round && (x === me || y === me));
      const them = a === me ? b : a;
      const want = `${shown(score(me, them))} v ${line[them]}`;
      check(row[1 + round] === want, `${me} in round ${round}: the page shows "${row[1 + round]}", the games say "${want}"`);
    }
  }
  result.swiss = swissRows;
  result.swissHeads = await tieBreaks(ann);
  check(result.swissHeads === '#,Player,Points,Buchholz,Games', `a Swiss's tie-break by name: ${result.swissHeads}`);
  result.unnamed.swiss = await unnamedControls(ann);
  await snap(ann, 'tournament-swiss');
});
