// The lobby: my games (my turn first, with deadlines), open games to join (by kind), games
// being played to watch, the waiting room of challenges (see club.js), tournaments open for
// entry (see tournament.js), and a form to create a game as GET /v1/kinds describes the games.

import { get, getAll, post, seg } from './api.js';
import { h, mount, field, deadline, relative, say, sayError, kindTitle, orSay, submitted } from './dom.js';
import { waitingRoom } from './club.js';
import { openTournaments } from './tournament.js';

let kindsCache = null;
export async function kinds() {
  if (!kindsCache) kindsCache = await getAll('/kinds');
  return kindsCache;
}

function players(game) {
  return (game.seats || []).map((s) => s.player_name || 'free seat').join(' · ');
}

/** The one who created the game: the first seated player of a game still waiting. */
function creator(game) {
  const seated = (game.seats || []).find((s) => s.player_name);
  return seated ? seated.player_name : 'someone';
}

function clockWords(tc) {
  if (!tc || tc.type === 'none') return 'no clock';
  if (tc.type === 'days_per_move') return `${tc.days} ${tc.days === 1 ? 'day' : 'days'} a move`;
  if (tc.type === 'seconds_per_move') return `${tc.seconds} s a move`;
  return tc.type;
}

/** The options of a game set apart from its kind's defaults, in words: "deck: lift 11". */
function optionWords(options, defaults) {
  const out = [];
  for (const [name, value] of Object.entries(options || {})) {
    const standard = defaults ? defaults[name] : undefined;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const inner = optionWords(value, standard && typeof standard === 'object' ? standard : {});
      if (inner.length) out.push(`${optionLabel(name)}: ${inner.join(', ')}`);
    } else if (JSON.stringify(value) !== JSON.stringify(standard)) {
      const shown = typeof value === 'boolean' ? (value ? 'yes' : 'no') : Array.isArray(value) ? value.join(' ') : String(value);
      out.push(`${optionLabel(name)} ${shown}`);
    }
  }
  return out;
}

/** What tells one open game from another: who made it and when, then what it is: its variant,
 * seats, clock and the options set apart from the defaults. */
function openDetails(game, kind) {
  const free = (game.seats || []).filter((s) => !s.player_name).length;
  const what = [];
  if (kind && kind.variants.length) what.push(game.variant || kind.variants[0]);
  what.push(`${game.seats.length} seats, ${free} free`, clockWords(game.time_control));
  const changed = optionWords(game.options, kind && kind.default_options);
  if (changed.length) what.push(changed.join('; '));
  else if (kind && Object.keys(kind.default_options || {}).length) what.push('usual options');
  return [h('span', { class: 'details' },
    `by ${creator(game)}, `, h('time', { datetime: game.created_at, title: new Date(game.created_at).toLocaleString() }, relative(game.created_at))),
  h('span', { class: 'options-line', 'data-testid': 'game-options' }, what.join(' · '))];
}

function gameLine(game, extra, open = false, kind = null) {
  const variant = game.variant && game.variant !== 'standard' && !open ? ` (${game.variant})` : '';
  return h('li', { class: ['game-line', game.your_turn && 'my-turn'], 'data-game': game.id },
    // Named by its visible text (kind, players or creator and age); "Your turn" is beside it.
    h('a', { href: `#/game/${seg(game.id)}` },
      h('span', { class: 'kind' }, kindTitle(game.kind), variant),
      open ? openDetails(game, kind) : h('span', { class: 'who' }, players(game))),
    game.your_turn ? h('span', { class: 'badge' }, 'Your turn') : h('span', { class: 'muted' }, game.status),
    game.deadline ? h('span', { class: 'deadline' }, 'deadline ', deadline(game.deadline)) : null,
    extra || null);
}

export async function lobbyPage(main, _params, app) {
  app.title('Lobby · Avalanche');
  let all;
  try {
    all = await kinds();
  } catch (e) {
    sayError(e);
    mount(main, h('h1', {}, 'Lobby'), h('p', {}, 'The server cannot be reached.'));
    return;
  }
  const mineBox = h('section', { class: 'card', 'aria-labelledby': 'mine-title' }, h('h2', { id: 'mine-title' }, 'My games'));
  const openList = h('ul', { class: 'games', 'data-testid': 'open-games', 'aria-live': 'polite' });
  const watchList = h('ul', { class: 'games', 'data-testid': 'watch-games' });
  const filter = h('select', { name: 'kind-filter' },
    h('option', { value: '' }, 'All games'),
    all.map((k) => h('option', { value: k.id }, k.name)));

  const drawOpen = orSay(async () => {
    const kind = filter.value;
    const q = kind ? `&kind=${seg(kind)}` : '';
    const [open, active] = await Promise.all([
      get(`/games?status=open${q}`).then((page) => page.items),
      get(`/games?status=active${q}&limit=10`).then((page) => page.items),
    ]);
    mount(openList, open.length ? open.map((g) => gameLine(g, joinButton(g), true, all.find((k) => k.id === g.kind))) : h('li', { class: 'muted' }, 'No open game: create one.'));
    mount(watchList, active.length ? active.map((g) => gameLine(g)) : h('li', { class: 'muted' }, 'Nobody is playing right now.'));
  });

  function joinButton(game) {
    if (!app.me) return null;
    if (game.your_seat != null) return h('a', { href: `#/game/${seg(game.id)}`, class: 'button secondary' }, 'Open');
    return h('button', {
      'aria-label': `Join the ${kindTitle(game.kind)} game created by ${creator(game)} ${relative(game.created_at)}`,
      onclick: async () => {
        try {
          await post(`/games/${seg(game.id)}/join`, {});
          app.go(`#/game/${seg(game.id)}`);
        } catch (e) { sayError(e); drawOpen(); }
      },
    }, 'Join');
  }

  const drawMine = orSay(async () => {
    if (!app.me) {
      mount(mineBox, h('h2', { id: 'mine-title' }, 'My games'),
        h('p', {}, h('a', { href: '#/account' }, 'Sign up or sign in'), ' to create and join games. You may watch any game without an account.'));
      return;
    }
    const games = await getAll('/players/me/games?limit=200');
    const mineFirst = [...games].sort((a, b) => {
      if (a.your_turn !== b.your_turn) return a.your_turn ? -1 : 1;
      const da = a.deadline ? Date.parse(a.deadline) : Infinity;
      const db = b.deadline ? Date.parse(b.deadline) : Infinity;
      return da - db;
    });
    // A game superseded by a takeback goes on in its continuation, which is listed itself.
    const shown = mineFirst.filter((g) => !g.superseded);
    const live = shown.filter((g) => g.status !== 'finished');
    const done = shown.filter((g) => g.status === 'finished').slice(0, 10);
    const waiting = live.filter((g) => g.your_turn).length;
    app.setTurns(waiting);
    mount(mineBox, h('h2', { id: 'mine-title' }, 'My games',
      waiting ? h('span', { class: 'badge', 'data-testid': 'my-move-count' }, ` ${waiting} waiting for your move`) : null),
      live.length ? h('ul', { class: 'games', 'data-testid': 'my-games' }, live.map((g) => gameLine(g))) : h('p', { class: 'muted' }, 'No game yet.'),
      done.length ? h('details', {}, h('summary', {}, `Finished (${done.length})`), h('ul', { class: 'games' }, done.map((g) => gameLine(g)))) : null);
  });

  filter.addEventListener('change', drawOpen);
  const room = waitingRoom(all, app);
  const tournaments = openTournaments(app);
  mount(main,
    h('h1', { class: 'visually-hidden' }, 'Lobby'),
    h('div', { class: 'lobby' },
      mineBox,
      room.box,
      tournaments.box,
      app.me ? createForm(all, app) : null,
      h('section', { class: 'card', 'aria-labelledby': 'open-title' },
        h('div', { class: 'row spread' }, h('h2', { id: 'open-title' }, 'Open games'), field('Show', filter)),
        openList,
        h('h2', {}, 'Being played'), watchList)));
  await Promise.all([drawMine(), drawOpen(), room.draw(), tournaments.draw()]);
  // In a background tab the lobby still counts my games (the title and the notification say
  // it), with one request a tick.
  const timer = setInterval(() => {
    if (!document.hidden) { drawOpen(); room.draw(); tournaments.draw(); }
    drawMine();
  }, 10000);
  return () => clearInterval(timer);
}

function optionControl(name, value) {
  if (typeof value === 'boolean') return h('input', { type: 'checkbox', name, checked: value });
  if (typeof value === 'number') return h('input', { type: 'number', name, value, min: 0, step: Number.isInteger(value) ? 1 : 'any' });
  return h('input', { name, value: value === null ? '' : String(value) });
}

/** An option's words: `saint_bernards` -> "saint bernards". */
const optionLabel = (name) => name.replaceAll('_', ' ');

/** The fields of a kind's default options: a nested object (Ski Runs's `deck`) is a fieldset
 * of its own fields, each named by its path (`deck.lift`), never one text field. */
function optionFields(options, path = []) {
  return Object.entries(options).map(([name, value]) => {
    const at = [...path, name];
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return h('fieldset', { class: 'options nested', 'data-option-group': at.join('.') },
        h('legend', {}, optionLabel(name)), optionFields(value, at));
    }
    const control = optionControl(at.join('.'), value);
    control.dataset.option = at.join('.');
    control.dataset.kind = Array.isArray(value) ? 'json' : typeof value;
    return field(optionLabel(name), control);
  });
}

/** The options object the option fields hold (paths put back into nested objects). */
function readOptions(box) {
  const options = {};
  for (const control of box.querySelectorAll('[data-option]')) {
    const t = control.dataset.kind;
    let value = control.value;
    if (t === 'boolean') value = control.checked;
    else if (t === 'number') value = Number(control.value);
    else if (t === 'json') { try { value = JSON.parse(control.value); } catch { /* the server says what is wrong */ } }
    const path = control.dataset.option.split('.');
    let at = options;
    for (const key of path.slice(0, -1)) at = (at[key] ??= {});
    at[path[path.length - 1]] = value;
  }
  return options;
}

function createForm(all, app) {
  const kind = h('select', { name: 'kind' }, all.map((k) => h('option', { value: k.id }, k.name)));
  const variant = h('select', { name: 'variant' });
  const seats = h('input', { type: 'number', name: 'seats', min: 1, max: 6, value: 2 });
  const rated = h('input', { type: 'checkbox', name: 'rated' });
  const clockType = h('select', { name: 'clock' },
    h('option', { value: 'none' }, 'No clock'),
    h('option', { value: 'days_per_move' }, 'Days per move'),
    h('option', { value: 'seconds_per_move' }, 'Seconds per move'));
  const clockAmount = h('input', { type: 'number', name: 'clock-amount', min: 1, value: 3 });
  const amountField = field('Allowance per move', clockAmount);
  const optionsBox = h('fieldset', { class: 'options' });
  const about = h('p', { class: 'muted about' });

  function sync() {
    const k = all.find((x) => x.id === kind.value);
    if (!k) return;
    mount(variant, (k.variants.length ? k.variants : ['']).map((v) => h('option', { value: v }, v || 'standard')));
    variant.disabled = k.variants.length === 0;
    seats.min = k.min_seats;
    seats.max = k.max_seats;
    const n = Number(seats.value);
    if (!(n >= k.min_seats && n <= k.max_seats)) seats.value = Math.min(Math.max(2, k.min_seats), k.max_seats);
    seats.disabled = k.min_seats === k.max_seats;
    about.textContent = `${k.summary} ${k.min_seats === k.max_seats ? `${k.min_seats} players.` : `${k.min_seats} to ${k.max_seats} players.`}`;
    const entries = Object.entries(k.default_options || {});
    optionsBox.hidden = entries.length === 0;
    mount(optionsBox, h('legend', {}, 'Options'), optionFields(k.default_options || {}));
  }
  function syncClock() {
    amountField.hidden = clockType.value === 'none';
    if (clockType.value === 'days_per_move') { clockAmount.max = 14; if (Number(clockAmount.value) > 14) clockAmount.value = 3; }
    if (clockType.value === 'seconds_per_move') { clockAmount.max = 86400; }
  }
  kind.addEventListener('change', sync);
  clockType.addEventListener('change', syncClock);
  sync();
  syncClock();

  return h('form', {
    class: 'card create',
    'aria-labelledby': 'create-title',
    onsubmit: submitted(async () => {
      const options = readOptions(optionsBox);
      const body = { kind: kind.value, seats: Number(seats.value) };
      if (!variant.disabled && variant.value) body.variant = variant.value;
      if (Object.keys(options).length) body.options = options;
      if (clockType.value === 'days_per_move') body.time_control = { type: 'days_per_move', days: Number(clockAmount.value) };
      if (clockType.value === 'seconds_per_move') body.time_control = { type: 'seconds_per_move', seconds: Number(clockAmount.value) };
      if (rated.checked && Number(seats.value) > 1) body.rated = true;
      const game = await post('/games', body);
      say('Game created: waiting for the other players.');
      app.go(`#/game/${seg(game.id)}`);
    }),
  },
  h('h2', { id: 'create-title' }, 'New game'),
  field('Game', kind), about,
  h('div', { class: 'row' }, field('Variant', variant), field('Players', seats)),
  h('div', { class: 'row' }, field('Clock', clockType), amountField),
  optionsBox,
  h('label', { class: 'check' }, rated, ' Rated: the result counts for both players\' ratings'),
  h('button', { type: 'submit' }, 'Create the game'));
}
