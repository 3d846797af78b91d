// A league in a real browser: Ann creates a league of seven (divisions of four and three, one
// up and one down) over the API and enters it from the lobby's open tournaments (Join, Withdraw, Join
// again); the six others enter over the API and every game is ended by a rule fixed here (the
// earlier of Ann, Ben, Cy, Di, Ed, Flo, Gil wins). The finished edition's page draws a crosstable
// and standings per division, checked cell by cell against the games played, with the
// tie-breaks' names as headers. Ann builds the next edition, a first-division player leaves
// and Gus enters; once it has started by its start time, the first edition links to it, and its
// page lists the moves (promoted, relegated, left, new) and links back. axe-core on the new
// edition's page. Screenshots at 1280 and 375 px. Prints one line `RESULT {json}`.

import {
  BASE, context, unnamedControls, api, apiPost, check, signUp, newPlayer, run, snapper, axeViolations,
} from './lib.mjs';

const result = { screenshots: [], overflow: {}, unnamed: {}, axe: {}, games: 0 };
const snap = snapper(result);
const ORDER = ['Ann', 'Ben', 'Cy', 'Di', 'Ed', 'Flo', 'Gil', 'Gus'];
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** Ends game `game` (tokens in seat order, names likewise): the earlier name in ORDER wins. */
async function finish(game, seats, names) {
  const legal = await api(`/games/${game}/legal`, seats[0]);
  const move = legal.commands.find((l) => l.command.type === 'turn');
  check(move, `a first move in ${game}`);
  await apiPost(`/games/${game}/commands`, seats[0], move.command);
  const loser = ORDER.indexOf(names[0]) < ORDER.indexOf(names[1]) ? 1 : 0;
  await apiPost(`/games/${game}/commands`, seats[loser], { type: 'resign' });
  result.games += 1;
}

/** Reads tournament `id` until `done(t)` holds (the driver pairs and starts by itself). */
async function until(id, done, what) {
  for (let i = 0; i < 300; i += 1) {
    const t = await api(`/tournaments/${id}`);
    if (done(t)) return t;
    await pause(100);
  }
  throw new Error(`${id}: ${what} never came`);
}

/** Every table of the page with test id `testid`: per table, per body row, each cell's text. */
async function drawnTables(page, testid) {
  return page.getByTestId(testid).evaluateAll((tables) => tables.map((table) => [...table.querySelectorAll('tbody tr')]
    .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim()))));
}
const first = (cell) => cell.split(' #')[0];

await run(result, async (browser) => {
  const annCtx = await context(browser, 'ann', undefined, { options: { bypassCSP: true } });
  const ann = await annCtx.newPage();
  const tokens = { Ann: await signUp(ann, 'Ann') };
  for (const name of ORDER.slice(1)) tokens[name] = await newPlayer(name);
  const byId = {};
  for (const [name, token] of Object.entries(tokens)) byId[(await api('/players/me', token)).id] = name;

  const league = (await apiPost('/tournaments', tokens.Ann, {
    name: 'Autumn league', kind: 'avalanche-chess', format: 'league', seats: 2,
    entry_until: '2100-01-01T00:00:00Z', min_players: 7, max_players: 8,
    league: { division_size: 4, promoted: 1, relegated: 1 },
  })).id;

  // Ann finds it among the lobby's open tournaments: joins, withdraws, joins again.
  await ann.goto(`${BASE}/#/`);
  const box = ann.getByTestId('open-tournaments');
  await box.getByRole('link', { name: /Autumn league/ }).waitFor();
  await box.getByRole('button', { name: 'Join Autumn league' }).click();
  await box.getByRole('button', { name: 'Withdraw from Autumn league' }).waitFor();
  check((await api(`/tournaments/${league}`)).players.length === 1, 'Ann has joined from the lobby');
  const listed = await api('/tournaments?status=open', tokens.Ann);
  check(listed.items.find((t) => t.id === league).joined === true, 'the list says Ann has joined');
  check((await api('/tournaments?status=open')).items.find((t) => t.id === league).joined === false, 'and says no one without a token');
  await box.getByRole('button', { name: 'Withdraw from Autumn league' }).click();
  await box.getByRole('button', { name: 'Join Autumn league' }).waitFor();
  check((await api(`/tournaments/${league}`)).players.length === 0, 'Ann has withdrawn from the lobby');
  await box.getByRole('button', { name: 'Join Autumn league' }).click();
  await box.getByRole('button', { name: 'Withdraw from Autumn league' }).waitFor();
  result.unnamed.lobby = await unnamedControls(ann);
  await snap(ann, 'lobby-tournaments');

  for (const name of ORDER.slice(1, 7)) await apiPost(`/tournaments/${league}/join`, tokens[name], {});
  await apiPost(`/tournaments/${league}/start`, tokens.Ann, {});
  // Divisions of four and three: three rounds (in the second, one bye a round).
  const played = [];
  for (let round = 1; round <= 3; round += 1) {
    const t = await until(league, (x) => x.rounds_played.length >= round, `round ${round}`);
    for (const table of t.rounds_played[round - 1].tables) {
      const names = table.players.map((p) => byId[p]);
      await finish(table.game, names.map((n) => tokens[n]), names);
      played.push({ round, names, byes: t.rounds_played[round - 1].byes.map((p) => byId[p]) });
    }
  }
  const done = await until(league, (x) => x.status === 'finished', 'the end');
  const divisions = done.divisions.map((d) => d.map((p) => byId[p]));
  result.divisions = divisions;

  await ann.goto(`${BASE}/#/tournament/${league}`);
  await ann.getByText(`Seed ${done.seed}`).waitFor();
  const heads = await ann.getByTestId('standings').first().evaluate((table) => [...table.querySelectorAll('thead th')].map((c) => c.textContent));
  result.standingsHeads = heads;
  check(heads.join(',') === '#,Player,Points,Sonneborn-Berger,Head-to-head,Games', `the tie-breaks by name: ${heads}`);
  check(await ann.getByRole('heading', { name: 'Division 2' }).count() === 2, 'a crosstable and standings headed "Division 2"');
  const standings = await drawnTables(ann, 'standings');
  const crosstables = await drawnTables(ann, 'crosstable');
  check(standings.length === 2 && crosstables.length === 2, `a table a division: ${standings.length}, ${crosstables.length}`);
  standings.forEach((rows, d) => {
    const names = rows.map((r) => first(r[1]));
    check([...names].sort().join() === [...divisions[d]].sort().join(), `division ${d + 1} holds its players: ${names}`);
    // Within a division each player meets every other once: ranked by wins.
    const wins = (n) => divisions[d].filter((o) => ORDER.indexOf(n) < ORDER.indexOf(o)).length;
    rows.forEach((r, i) => {
      check(r[0] === String(i + 1), `ranks count within the division: ${r}`);
      check(r[2] === String(wins(first(r[1]))), `${first(r[1])}'s points: ${r[2]}`);
    });
    // The crosstable: each round, the points scored and the line (in the division) of the one met.
    const lines = crosstables[d].map((r) => first(r[1]));
    crosstables[d].forEach((row) => {
      const me = first(row[1]);
      for (let round = 1; round <= 3; round += 1) {
        const game = played.find((p) => p.round === round && p.names.includes(me));
        const them = game && game.names.find((n) => n !== me);
        const want = game ? `${ORDER.indexOf(me) < ORDER.indexOf(them) ? 1 : 0} v ${lines.indexOf(them) + 1}` : 'bye';
        check(row[1 + round] === want, `${me} in round ${round}: the page shows "${row[1 + round]}", the games say "${want}"`);
      }
    });
  });
  result.standings = standings;
  result.crosstables = crosstables;
  await snap(ann, 'league-finished');

  // The next edition: entry and start a few seconds away; the first division's second leaves,
  // Gus enters.
  const soon = new Date(Date.now() + 8000).toISOString();
  const second = (await apiPost(`/tournaments/${league}/next`, tokens.Ann, { entry_until: soon, starts_at: soon })).id;
  const ranked = standings.map((rows) => rows.map((r) => first(r[1])));
  const leaver = ranked[0][1];
  await apiPost(`/tournaments/${second}/withdraw`, tokens[leaver], {});
  await apiPost(`/tournaments/${second}/join`, tokens.Gus, {});
  const running = await until(second, (x) => x.status === 'running', 'the start of edition 2');
  const want = [
    `${leaver}: left (was in division 1)`,
    `${ranked[1][0]}: promoted from division 2 to 1`,
    `${ranked[0][ranked[0].length - 1]}: relegated from division 1 to 2`,
    'Gus: new, in division 2',
  ].sort();

  await ann.reload();
  await ann.getByRole('link', { name: 'Next edition' }).click();
  await ann.waitForURL(new RegExp(`#/tournament/${second}$`));
  await ann.getByTestId('moves').waitFor();
  check((await ann.getByTestId('edition').textContent()).startsWith('Edition 2'), 'the edition is named');
  const moves = await ann.getByTestId('moves').evaluate((ul) => [...ul.querySelectorAll('li')].map((li) => li.textContent.replace(/ #[^:]*:/, ':')));
  result.moves = moves;
  check([...moves].sort().join('|') === want.join('|'), `the moves: ${moves}, the rules say ${want}`);
  check((await ann.getByTestId('standings').count()) === running.divisions.length, 'standings for each division of edition 2');
  result.unnamed.edition = await unnamedControls(ann);
  result.axe.edition = (await axeViolations(ann)).violations;
  await snap(ann, 'league-edition-2');
  await ann.getByRole('link', { name: 'Previous edition' }).click();
  await ann.waitForURL(new RegExp(`#/tournament/${league}$`));
  await ann.getByRole('link', { name: 'Next edition' }).waitFor();
  result.league = league;
  result.next = second;
});
