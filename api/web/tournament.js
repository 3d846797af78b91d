// Tournaments: the list and the lobby's open ones (with entry and withdrawal), and a tournament's page
// (entry, rounds with every game linked, standings, crosstable; a league's divisions, moves and
// editions). Everything shown is the server's answer.

import { get, post, seg } from './api.js';
import { h, mount, say, sayError, orSay, kindTitle } from './dom.js';

const points = (v) => (v == null ? '' : v % 1 ? `${Math.floor(v) || ''}½` : String(v));

let named = {};
const who = (id) => named[id] || id;
const playerLink = (id) => h('a', { href: `#/player/${seg(id)}` }, who(id));
const td = (c) => h('td', {}, c);
const th = (c) => h('th', {}, c);
const format = (t) => t.format.replace('_', ' ');
const tournamentLink = (id, text) => h('a', { href: `#/tournament/${seg(id)}` }, text);
const TIE_BREAKS = { sonneborn_berger: 'Sonneborn-Berger', head_to_head: 'Head-to-head', buchholz: 'Buchholz', game_score: 'Game score' };

/** Join or Withdraw for the signed-in player (`joined` or not), then `after()`. */
function entryButton(t, joined, after) {
  const what = joined ? 'withdraw' : 'join';
  return h('button', {
    'data-testid': what, 'aria-label': `${joined ? 'Withdraw from' : 'Join'} ${t.name}`,
    onclick: orSay(async () => {
      await post(`/tournaments/${seg(t.id)}/${what}`);
      say(`You have ${joined ? 'withdrawn from' : 'joined'} ${t.name}.`);
      after();
    }),
  }, joined ? 'Withdraw' : 'Join');
}

/** Tournaments as lines (name, game, format, status, players), each open one with Join or
 * Withdraw; `after()` draws them again. */
function tournamentLines(items, app, after) {
  return h('ul', { class: 'games' }, items.length ? items.map((t) => h('li', { class: 'game-line', 'data-testid': 'tournament' },
    tournamentLink(t.id, [h('span', { class: 'kind' }, t.name),
      h('span', { class: 'who' }, `${kindTitle(t.kind)} · ${format(t)} · ${t.status} · ${t.players} of ${t.max_players} players`)]),
    app.me && t.status === 'open' ? entryButton(t, t.joined, after) : null)) : h('li', { class: 'muted' }, 'None yet.'));
}

/** The lobby's tournaments open for entry; `draw()` asks again. */
export function openTournaments(app) {
  const box = h('section', { class: 'card', 'aria-labelledby': 'tournaments-title', 'data-testid': 'open-tournaments' });
  const draw = async () => {
    const open = await get('/tournaments?status=open').catch(sayError);
    if (open) mount(box, h('h2', { id: 'tournaments-title' }, 'Open tournaments'), tournamentLines(open.items, app, draw));
  };
  return { box, draw };
}

/** #/tournaments */
export async function tournamentsPage(main, _params, app) {
  app.title('Tournaments');
  const list = await get('/tournaments').catch(sayError);
  if (list) mount(main, h('h1', {}, 'Tournaments'), tournamentLines(list.items, app, () => app.go('#/tournaments')));
}

/** A crosstable of lines `from` to `to` (all, or a league's division), counted from `from`: a
 * round robin's points against each line; a Swiss's, a knock-out's or a league's, each round's
 * points and the lines met. */
function crosstable(t, from, to) {
  const rows = t.crosstable.slice(from, to);
  const rr = rows.some((r) => r.against.length);
  const heads = rr ? rows.map((_, i) => String(i + 1)) : t.rounds_played.map((r) => `R${r.round}`);
  return h('table', { class: 'crosstable', 'data-testid': 'crosstable' },
    h('thead', {}, h('tr', {}, th('#'), th('Player'), heads.map(th), th('Points'))),
    h('tbody', {}, rows.map((row, i) => h('tr', {},
      td(String(row.rank)), td(playerLink(row.player)),
      rr ? row.against.slice(from, to).map((cell, j) => h('td', { class: i === j ? 'self' : '' }, i === j ? '×' : points(cell)))
        : t.rounds_played.map((r) => {
          const mine = row.rounds.find((x) => x.round === r.round);
          return td(!mine ? '' : mine.seat == null ? 'bye' : `${points(mine.points) || '…'} v ${mine.opponents.map((o) => o - from).join(' ')}`);
        }),
      td(points(row.points))))));
}

function standings(t, from, to) {
  return h('table', { class: 'standings', 'data-testid': 'standings' },
    h('thead', {}, h('tr', {}, th('#'), th('Player'), th('Points'),
      t.tie_breaks.map((name) => th(TIE_BREAKS[name] || name)), th('Games'))),
    h('tbody', {}, t.standings.slice(from, to).map((row) => h('tr', {},
      td(String(row.rank)), td(playerLink(row.player)), td(points(row.points)),
      row.tie_breaks.map((v) => td(String(v))), td(String(row.games))))));
}

/** A league player's move since the edition before, in words. */
function moveWords(m) {
  if (m.from == null) return `new, in division ${m.to}`;
  if (m.to == null) return `left (was in division ${m.from})`;
  return `${m.to < m.from ? 'promoted' : 'relegated'} from division ${m.from} to ${m.to}`;
}

/** #/tournament/<id> */
export async function tournamentPage(main, [id], app) {
  const t = await get(`/tournaments/${seg(id)}`).catch(sayError);
  if (!t) return;
  app.title(t.name);
  named = t.names;
  const me = app.me ? app.me.id : null;
  const joined = me && t.players.includes(me);
  const again = () => app.go(location.hash);
  const start = orSay(async () => {
    await post(`/tournaments/${seg(id)}/start`);
    say('Started.');
    again();
  });
  const actions = [];
  if (me && t.status === 'open') {
    actions.push(entryButton(t, joined, again));
    if (t.creator === me) actions.push(h('button', { onclick: start, 'data-testid': 'start' }, 'Start'));
  }
  // A league's divisions, each ranked on its own: its lines are together in the standings, the
  // first division first.
  const parts = t.divisions.length ? t.divisions.map((_, i) => {
    const from = t.standings.findIndex((r) => r.division === i + 1);
    return [`Division ${i + 1}`, from, from + t.divisions[i].length];
  }) : [[null, 0, t.standings.length]];
  const byPart = (table) => parts.map(([title, from, to]) => [title ? h('h3', {}, title) : null,
    h('div', { class: 'scroll' }, table(t, from, to))]);
  const league = t.league;
  const rounds = t.rounds_played.map((round) => h('section', { class: 'round', 'data-testid': 'round' },
    h('h3', {}, `Round ${round.round}`),
    h('ul', {}, round.tables.map((table) => h('li', {},
      h('a', { href: `#/${table.result ? 'replay' : 'game'}/${seg(table.game)}` }, `Table ${table.table}`),
      ': ', table.players.map(who).join(' – '),
      table.points ? ` (${table.points.map(points).join(' – ')})` : ' (playing)'))),
    round.byes.length ? h('p', {}, `Bye: ${round.byes.map(who).join(', ')}`) : null));
  mount(main,
    h('h1', {}, t.name),
    h('p', {}, `${kindTitle(t.kind)} · ${format(t)} · ${t.seats} seats a table · ${t.status} · ${t.players.length} of ${t.max_players} players`),
    league ? h('p', { 'data-testid': 'edition' }, `Edition ${league.edition}`,
      league.previous ? [' · ', tournamentLink(league.previous, 'Previous edition')] : null,
      t.next_edition ? [' · ', tournamentLink(t.next_edition, 'Next edition')] : null) : null,
    h('p', { class: 'seed' }, t.seed ? `Seed ${t.seed}` : `Seed commitment ${t.seed_commitment}`),
    actions.length ? h('p', {}, actions) : null,
    t.moves.length ? [h('h2', {}, 'Since the edition before'),
      h('ul', { 'data-testid': 'moves' }, t.moves.map((m) => h('li', {}, playerLink(m.player), `: ${moveWords(m)}`)))] : null,
    h('h2', {}, 'Crosstable'), byPart(crosstable),
    h('h2', {}, 'Standings'), byPart(standings),
    h('h2', {}, 'Rounds'), rounds.length ? rounds : h('p', {}, 'Not started.'));
}
