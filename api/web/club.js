// The club: the lobby's waiting room (open challenges, a challenge to a player found by name),
// a player's page (record, ratings with a chart drawn here in SVG, current and past games
// linked to their tables and replays), and the rematch offer at the end of a game.

import { get, post, del, seg } from './api.js';
import { h, s, mount, say, sayError, field, kindTitle, relative, orSay, submitted } from './dom.js';

function ratingText(r) {
  return `${Math.round(r.rating)} ± ${Math.round(r.deviation)}`;
}

function poolTitle(pool) {
  const [kind, ...rest] = String(pool).split('.');
  const more = rest.map((p) => (p === 'multi' ? '3 or more seats' : p)).join(', ');
  return more ? `${kindTitle(kind)} (${more})` : kindTitle(kind);
}

/** A rating's history as a line chart: each rated game a point, oldest left. */
export function ratingChart(rating) {
  const points = [{ after: rating.history.length ? rating.history[0].before : rating.rating }, ...rating.history];
  const values = points.map((p) => p.after);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const width = 320;
  const height = 120;
  const pad = 16;
  const x = (i) => pad + (points.length === 1 ? 0 : (i * (width - 2 * pad)) / (points.length - 1));
  const y = (v) => height - pad - ((v - low) * (height - 2 * pad)) / span;
  const path = values.map((v, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  return s('svg', {
    class: 'rating-chart', viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': `${poolTitle(rating.pool)}: from ${Math.round(values[0])} to ${Math.round(values[values.length - 1])} over ${rating.history.length} rated games`,
    'data-testid': 'rating-chart',
  },
  s('line', { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, class: 'axis' }),
  s('text', { x: 2, y: pad - 4, class: 'label' }, String(Math.round(high))),
  s('text', { x: 2, y: height - 2, class: 'label' }, String(Math.round(low))),
  s('path', { d: path, class: 'line' }),
  values.map((v, i) => s('circle', { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 3, class: 'point' },
    s('title', {}, i ? `${Math.round(v)} after game ${points[i].game}` : `${Math.round(v)} at the start`))));
}

function resultWord(game) {
  if (game.status !== 'finished') return game.status === 'open' ? 'waiting for players' : 'being played';
  return game.result || 'no result';
}

function opponents(game, player) {
  return game.seats.filter((seat) => seat.player !== player).map((seat) => seat.display_name || 'free seat').join(', ');
}

function gameRow(game, player) {
  const href = game.status === 'finished' ? `#/replay/${seg(game.id)}` : `#/game/${seg(game.id)}`;
  const change = game.change ? ` (${Math.round(game.change.before)} → ${Math.round(game.change.after)})` : '';
  return h('li', { 'data-testid': 'player-game' },
    h('a', { href }, `${kindTitle(game.kind)}${game.variant ? ` ${game.variant}` : ''} against ${opponents(game, player)}`),
    h('span', { class: 'muted' }, ` · ${game.rated ? 'rated' : 'unrated'} · ${resultWord(game)}${change} · ${relative(game.finished_at || game.created_at)}`));
}

/** The form that challenges player `to` (a direct challenge of two seats). */
function challengeForm(to, kinds, onDone) {
  const twoSeats = kinds.filter((k) => k.min_seats <= 2 && k.max_seats >= 2);
  const kind = h('select', { name: 'challenge-kind' }, twoSeats.map((k) => h('option', { value: k.id }, k.name)));
  const rated = h('input', { type: 'checkbox', name: 'challenge-rated', checked: true });
  return h('form', {
    class: 'row', 'data-testid': 'challenge-form',
    onsubmit: submitted(async () => {
      const made = await post('/challenges', { kind: kind.value, seats: 2, rated: rated.checked, to: to.id });
      say(`Challenge sent to ${to.display_name}: it waits for them in the waiting room.`);
      onDone(made);
    }),
  }, field('Game', kind), h('label', { class: 'check' }, rated, ' rated'),
  h('button', { type: 'submit', 'aria-label': `Challenge ${to.display_name}` }, 'Challenge'));
}

/** The lobby's waiting room: open challenges (accept), mine (cancel), and a player found by
 * name to challenge. */
export function waitingRoom(kinds, app) {
  const list = h('ul', { class: 'games', 'data-testid': 'challenges', 'aria-live': 'polite' });

  function line(c) {
    const mine = app.me && c.by === app.me.id;
    const forMe = app.me && c.invited.includes(app.me.id);
    const range = c.min_rating !== null || c.max_rating !== null
      ? ` · ${c.min_rating === null ? 'any' : Math.round(c.min_rating)}–${c.max_rating === null ? 'any' : Math.round(c.max_rating)}` : '';
    const what = `${kindTitle(c.kind)}${c.variant ? ` ${c.variant}` : ''}, ${c.seats} seats, ${c.rated ? 'rated' : 'unrated'}${range}`;
    const by = c.by_display_name || c.by;
    const buttons = [];
    if (app.me && mine) {
      buttons.push(h('button', {
        class: 'secondary', 'aria-label': `Cancel your challenge: ${what}`,
        onclick: orSay(async () => { await del(`/challenges/${seg(c.id)}`); draw(); }),
      }, 'Cancel'));
    } else if (app.me) {
      buttons.push(h('button', {
        'data-testid': 'accept-challenge', 'aria-label': `Accept the challenge of ${by}: ${what}`,
        onclick: async () => {
          try {
            const after = await post(`/challenges/${seg(c.id)}/accept`, {});
            if (after.game) app.go(`#/game/${seg(after.game)}`);
            else draw();
          } catch (e) { sayError(e); draw(); }
        },
      }, 'Accept'));
      if (forMe) {
        buttons.push(h('button', {
          class: 'secondary', 'aria-label': `Decline the challenge of ${by}`,
          onclick: orSay(async () => { await post(`/challenges/${seg(c.id)}/decline`, {}); draw(); }),
        }, 'Decline'));
      }
    }
    return h('li', { 'data-testid': 'challenge', dataset: { challengeId: c.id } },
      h('a', { href: `#/player/${seg(c.by)}` }, h('bdi', {}, by)),
      c.by_rating !== null ? h('span', { class: 'muted' }, ` (${Math.round(c.by_rating)})`) : null,
      ` ${forMe ? 'challenges you: ' : 'offers '}${what}`,
      h('span', { class: 'muted' }, ` · expires ${relative(c.expires_at)}`),
      ' ', buttons);
  }

  const draw = orSay(async () => {
    const open = (await get('/challenges')).items;
    mount(list, open.length ? open.map(line) : h('li', { class: 'muted' }, 'No challenge waits: challenge a player by name below.'));
  });

  const box = h('section', { class: 'card', 'aria-labelledby': 'waiting-title', 'data-testid': 'waiting-room' },
    h('h2', { id: 'waiting-title' }, 'Waiting room'),
    list,
    h('h3', {}, 'Find a player'),
    findPlayer((p) => (app.me && p.id !== app.me.id ? challengeForm(p, kinds, () => draw()) : null)));
  return { box, draw };
}

/** A search of players by the start of their name (`GET /v1/players?name=`): each one found
 * linked to their page, with what `offer(player)` gives to do with them. */
export function findPlayer(offer) {
  const found = h('ul', { class: 'games', 'data-testid': 'found-players' });
  const name = h('input', { type: 'search', name: 'player-name', autocomplete: 'off', maxlength: 60 });
  const search = submitted(async () => {
    if (!name.value.trim()) return;
    const players = (await get(`/players?name=${encodeURIComponent(name.value.trim())}`)).items;
    mount(found, players.length ? players.map((p) => h('li', { 'data-testid': 'found-player' },
      h('a', { href: `#/player/${seg(p.id)}` }, h('bdi', {}, p.display_name)), ' ', offer(p)))
      : h('li', { class: 'muted' }, 'Nobody by that name.'));
  });
  return h('div', {},
    h('form', { class: 'row', role: 'search', onsubmit: search },
      field('Name', name), h('button', { type: 'submit' }, 'Find')),
    found);
}

/** An open game's invitation by name: a player found, mailed the game's link. */
export function inviteByName(game, app) {
  return h('div', { 'data-testid': 'invite-by-name' },
    h('h3', {}, 'Invite a player by name'),
    h('p', { class: 'muted' }, 'They are mailed the link to this game if they take invitations by mail.'),
    findPlayer((p) => (p.id === app.me.id || game.seats.some((x) => x.player_id === p.id) ? null : h('button', {
      class: 'secondary', 'data-testid': 'invite-player',
      onclick: orSay(async () => {
        await post(`/games/${seg(game.id)}/invitations`, { player_id: p.id });
        say(`${p.display_name} is invited.`);
      }),
    }, `Invite ${p.display_name}`))));
}

/** A player's page: #/player/<id>. */
export async function playerPage(main, [id], app) {
  let player;
  let games;
  let kinds;
  try {
    [player, games, kinds] = await Promise.all([
      get(`/players/${seg(id)}`),
      get(`/players/${seg(id)}/games?limit=50`),
      get('/kinds?limit=200').then((page) => page.items),
    ]);
  } catch (e) {
    sayError(e);
    mount(main, h('h1', {}, 'No such player'), h('p', {}, h('a', { href: '#/' }, 'Back to the lobby')));
    return;
  }
  app.title(`${player.name} · Avalanche`);
  const record = `${player.played} ${player.played === 1 ? 'game' : 'games'}: ${player.won} won, ${player.drawn} drawn, ${player.lost} lost`;
  const since = new Date(player.member_since).toLocaleDateString();
  const seen = player.last_active ? new Date(player.last_active).toLocaleDateString() : 'never played';
  const challengeBox = h('div', {});
  if (app.me && app.me.id !== player.id) {
    mount(challengeBox, challengeForm(player, kinds, () => mount(challengeBox, h('p', { class: 'notice' }, 'Challenge sent.'))));
  }
  mount(main,
    h('h1', {}, h('bdi', { 'data-testid': 'player-name' }, player.display_name)),
    h('p', { class: 'muted' }, `Member since ${since} · last active ${seen}`),
    h('p', { 'data-testid': 'player-record' }, record),
    challengeBox,
    h('section', { class: 'card', 'aria-labelledby': 'ratings-title' },
      h('h2', { id: 'ratings-title' }, 'Ratings'),
      player.ratings.length
        ? h('ul', { class: 'ratings', 'data-testid': 'ratings' }, player.ratings.map((r) => h('li', { 'data-testid': 'rating', dataset: { pool: r.pool } },
          h('h3', {}, poolTitle(r.pool), ' ', h('span', { 'data-testid': 'rating-value' }, ratingText(r))),
          h('p', { class: 'muted' }, `${r.games} rated ${r.games === 1 ? 'game' : 'games'}${r.rank ? ` · #${r.rank} on the leaderboard` : ''}`),
          ratingChart(r))))
        : h('p', { class: 'muted' }, 'No rated game yet.')),
    player.current.length ? h('section', { class: 'card', 'aria-labelledby': 'current-title' },
      h('h2', { id: 'current-title' }, 'Playing now'),
      h('ul', { class: 'games' }, player.current.map((g) => gameRow(g, player.id)))) : null,
    h('section', { class: 'card', 'aria-labelledby': 'games-title' },
      h('h2', { id: 'games-title' }, 'Games'),
      games.items.length ? h('ul', { class: 'games', 'data-testid': 'player-games' }, games.items.map((g) => gameRow(g, player.id)))
        : h('p', { class: 'muted' }, 'No game yet.')));
}

/** The rematch button of a finished game the caller played. */
export function rematchButton(game, app) {
  if (!app.me || game.status !== 'finished' || game.your_seat == null || game.parent) return null;
  return h('button', {
    class: 'secondary', 'data-testid': 'rematch',
    onclick: orSay(async () => {
      await post(`/games/${seg(game.id)}/rematch`, {});
      say('Rematch offered: it starts when the others accept it in the waiting room.');
    }),
  }, 'Offer a rematch');
}
