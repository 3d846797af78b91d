// Tournaments: the list, and a tournament's page (entry, rounds with every game linked, standings,
// crosstable). Everything shown is the server's answer.

import { get, post, seg } from './api.js';
import { h, mount, say, sayError, kindTitle } from './dom.js';

const points = (v) => (v == null ? '' : v % 1 ? `${Math.floor(v) || ''}½` : String(v));

let named = {};
const who = (id) => named[id] || id;
const playerLink = (id) => h('a', { href: `#/player/${seg(id)}` }, who(id));
const td = (c) => h('td', {}, c);
const th = (c) => h('th', {}, c);
const format = (t) => t.format.replace('_', ' ');

/** #/tournaments */
export async function tournamentsPage(main, _params, app) {
  app.title('Tournaments');
  const list = await get('/tournaments').catch(sayError);
  if (!list) return;
  const rows = list.items.map((t) => h('tr', { 'data-testid': 'tournament-row' },
    td(h('a', { href: `#/tournament/${seg(t.id)}` }, t.name)),
    td(kindTitle(t.kind)), td(format(t)), td(t.status), td(`${t.players} / ${t.max_players}`)));
  mount(main, h('h1', {}, 'Tournaments'),
    rows.length ? h('table', { class: 'standings' },
      h('thead', {}, h('tr', {}, ['Name', 'Game', 'Format', 'Status', 'Players'].map(th))),
      h('tbody', {}, rows)) : h('p', {}, 'No tournament yet.'));
}

/** #/tournament/<id> */
export async function tournamentPage(main, [id], app) {
  const t = await get(`/tournaments/${seg(id)}`).catch(sayError);
  if (!t) return;
  app.title(t.name);
  named = t.names;
  const me = app.me ? app.me.id : null;
  const joined = me && t.players.includes(me);
  const act = (what) => async () => {
    try {
      await post(`/tournaments/${seg(id)}/${what}`);
      say(what === 'join' ? 'You have joined.' : what === 'start' ? 'Started.' : 'You have withdrawn.');
      app.go(`#/tournament/${seg(id)}`);
    } catch (error) {
      sayError(error);
    }
  };
  const button = (what, label) => h('button', { onclick: act(what), 'data-testid': what }, label);
  const actions = [];
  if (me && t.status === 'open') {
    actions.push(joined ? button('withdraw', 'Withdraw') : button('join', 'Join'));
    if (t.creator === me) actions.push(button('start', 'Start'));
  }
  // A round robin's crosstable: points against each line; a Swiss's or a knock-out's: each
  // round's points and the lines met.
  const rr = t.crosstable.some((r) => r.against.length);
  const heads = rr ? t.crosstable.map((_, i) => String(i + 1)) : t.rounds_played.map((r) => `R${r.round}`);
  const crosstable = h('table', { class: 'crosstable', 'data-testid': 'crosstable' },
    h('thead', {}, h('tr', {}, th('#'), th('Player'), heads.map(th), th('Points'))),
    h('tbody', {}, t.crosstable.map((row, i) => h('tr', {},
      td(String(row.rank)), td(playerLink(row.player)),
      rr ? row.against.map((cell, j) => h('td', { class: i === j ? 'self' : '' }, i === j ? '×' : points(cell)))
        : t.rounds_played.map((r) => {
          const mine = row.rounds.find((x) => x.round === r.round);
          return td(!mine ? '' : mine.seat == null ? 'bye' : `${points(mine.points) || '…'} v ${mine.opponents.join(' ')}`);
        }),
      td(points(row.points))))));
  const standings = h('table', { class: 'standings', 'data-testid': 'standings' },
    h('thead', {}, h('tr', {}, th('#'), th('Player'), th('Points'),
      t.tie_breaks.map((name) => th(name.replaceAll('_', ' '))), th('Games'))),
    h('tbody', {}, t.standings.map((row) => h('tr', {},
      td(String(row.rank)), td(playerLink(row.player)), td(points(row.points)),
      row.tie_breaks.map((v) => td(String(v))), td(String(row.games))))));
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
    h('p', { class: 'seed' }, t.seed ? `Seed ${t.seed}` : `Seed commitment ${t.seed_commitment}`),
    actions.length ? h('p', {}, actions) : null,
    h('h2', {}, 'Crosstable'), h('div', { class: 'scroll' }, crosstable),
    h('h2', {}, 'Standings'), h('div', { class: 'scroll' }, standings),
    h('h2', {}, 'Rounds'), rounds.length ? rounds : h('p', {}, 'Not started.'));
}
