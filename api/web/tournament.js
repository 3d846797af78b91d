// Tournaments: the list, and a tournament's page (entry, rounds with every game linked, standings,
// crosstable). Everything shown is the server's answer.

import { get, post, seg } from './api.js';
import { h, mount, say, sayError, kindTitle } from './dom.js';

function points(value) {
  if (value === null || value === undefined) return '';
  const whole = Math.floor(value);
  const half = value - whole >= 0.5;
  return whole === 0 && half ? '½' : `${whole}${half ? '½' : ''}`;
}

let named = {};
const who = (id) => named[id] || id;
const playerLink = (id) => h('a', { href: `#/player/${encodeURIComponent(id)}` }, who(id));

/** #/tournaments */
export async function tournamentsPage(main, _params, app) {
  app.title('Tournaments');
  let list;
  try {
    list = await get('/tournaments');
  } catch (error) {
    sayError(error);
    return;
  }
  const rows = list.items.map((t) => h('tr', { 'data-testid': 'tournament-row' },
    h('td', {}, h('a', { href: `#/tournament/${encodeURIComponent(t.id)}` }, t.name)),
    h('td', {}, kindTitle(t.kind)),
    h('td', {}, t.format.replace('_', ' ')),
    h('td', {}, t.status),
    h('td', {}, `${t.players} / ${t.max_players}`)));
  mount(main, h('h1', {}, 'Tournaments'),
    rows.length ? h('table', { class: 'standings' },
      h('thead', {}, h('tr', {}, ['Name', 'Game', 'Format', 'Status', 'Players'].map((c) => h('th', {}, c)))),
      h('tbody', {}, rows)) : h('p', {}, 'No tournament yet.'));
}

/** #/tournament/<id> */
export async function tournamentPage(main, [id], app) {
  let t;
  try {
    t = await get(`/tournaments/${seg(id)}`);
  } catch (error) {
    sayError(error);
    return;
  }
  app.title(t.name);
  named = t.names;
  const me = app.me ? app.me.id : null;
  const joined = me && t.players.includes(me);
  const act = (what) => async () => {
    try {
      await post(`/tournaments/${seg(id)}/${what}`);
      say(what === 'join' ? 'You have joined.' : what === 'start' ? 'Started.' : 'You have withdrawn.');
      app.go(`#/tournament/${encodeURIComponent(id)}`);
    } catch (error) {
      sayError(error);
    }
  };
  const actions = [];
  if (me && t.status === 'open') {
    actions.push(joined
      ? h('button', { type: 'button', onclick: act('withdraw'), 'data-testid': 'withdraw' }, 'Withdraw')
      : h('button', { type: 'button', onclick: act('join'), 'data-testid': 'join' }, 'Join'));
    if (t.creator === me) actions.push(h('button', { type: 'button', onclick: act('start'), 'data-testid': 'start' }, 'Start'));
  }
  const order = t.crosstable.map((r) => r.player);
  const crosstable = h('table', { class: 'crosstable', 'data-testid': 'crosstable' },
    h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'Player'),
      order.map((_, i) => h('th', {}, String(i + 1))), h('th', {}, 'Points'))),
    h('tbody', {}, t.crosstable.map((row, i) => h('tr', {},
      h('td', {}, String(row.rank)), h('td', {}, playerLink(row.player)),
      row.against.map((cell, j) => h('td', { class: i === j ? 'self' : '' }, i === j ? '×' : points(cell))),
      h('td', {}, points(row.points))))));
  const standings = h('table', { class: 'standings', 'data-testid': 'standings' },
    h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'Player'), h('th', {}, 'Points'),
      t.tie_breaks.map((name) => h('th', {}, name.replaceAll('_', ' '))), h('th', {}, 'Games'))),
    h('tbody', {}, t.standings.map((row) => h('tr', {},
      h('td', {}, String(row.rank)), h('td', {}, playerLink(row.player)), h('td', {}, points(row.points)),
      row.tie_breaks.map((v) => h('td', {}, String(v))), h('td', {}, String(row.games))))));
  const rounds = t.rounds_played.map((round) => h('section', { class: 'round', 'data-testid': 'round' },
    h('h3', {}, `Round ${round.round}`),
    h('ul', {}, round.tables.map((table) => h('li', {},
      h('a', { href: `#/${table.result ? 'replay' : 'game'}/${encodeURIComponent(table.game)}` }, `Table ${table.table}`),
      ': ', table.players.map(who).join(' – '),
      table.points ? ` (${table.points.map(points).join(' – ')})` : ' (playing)'))),
    round.byes.length ? h('p', {}, `Bye: ${round.byes.map(who).join(', ')}`) : null));
  mount(main,
    h('h1', {}, t.name),
    h('p', {}, `${kindTitle(t.kind)} · ${t.format.replace('_', ' ')} · ${t.seats} seats a table · ${t.status} · ${t.players.length} of ${t.max_players} players`),
    h('p', { class: 'seed' }, t.seed ? `Seed ${t.seed}` : `Seed commitment ${t.seed_commitment}`),
    actions.length ? h('p', {}, actions) : null,
    h('h2', {}, 'Crosstable'), h('div', { class: 'scroll' }, crosstable),
    h('h2', {}, 'Standings'), h('div', { class: 'scroll' }, standings),
    h('h2', {}, 'Rounds'), rounds.length ? rounds : h('p', {}, 'Not started.'));
}
