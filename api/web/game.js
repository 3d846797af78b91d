// The game page shell: title, seats and players, whose turn, each seat's clock, the outcome,
// the table commands that GET /legal offers, a status line for errors, live updates by
// long-polling GET /v1/games/{id}/events (fetch with the Authorization header), and the table
// itself drawn by tables/<kind>.js through renderTable(root, ctx).

import { get, post, api, seg } from './api.js';
import { h, mount, deadline, say, sayError, seatName, kindTitle } from './dom.js';

/** Commands common to every game: the shell offers them, the table modules never see them. */
export const TABLE_COMMANDS = new Set([
  'resign', 'offer_draw', 'accept_draw', 'decline_draw',
  'request_takeback', 'accept_takeback', 'decline_takeback', 'claim_timeout',
]);

const LABELS = {
  offer_draw: 'Offer a draw',
  accept_draw: 'Accept the draw',
  decline_draw: 'Decline the draw',
  accept_takeback: 'Accept the takeback',
  decline_takeback: 'Decline the takeback',
  claim_timeout: 'Claim the win on time',
  resign: 'Resign',
};

const modules = new Map();
/** The table module of a kind, loaded once (tables/<kind>.js). */
export async function tableModule(kind) {
  if (!/^[a-z0-9-]+$/.test(kind)) throw new Error(`No table for ${kind}`);
  if (!modules.has(kind)) modules.set(kind, import(`./tables/${kind}.js`));
  return modules.get(kind);
}

/** Draws a kind's table into root; a missing module is said plainly rather than thrown. */
export async function drawTable(root, kind, ctx) {
  try {
    const module = await tableModule(kind);
    root.replaceChildren();
    module.renderTable(root, ctx);
  } catch (e) {
    mount(root, h('p', { class: 'muted' }, `This page cannot draw ${kindTitle(kind)} yet: `, String(e.message || e)));
  }
}

function clockText(seatInfo) {
  const clock = seatInfo.clock;
  if (!clock || clock.state === 'idle') return null;
  if (clock.state === 'running') return h('span', { class: 'clock running' }, 'must act by ', deadline(clock.deadline));
  if (clock.state === 'paused') return h('span', { class: 'clock' }, `on vacation, ${Math.round(clock.remaining_ms / 3600000)} h left`);
  return null;
}

export function outcomeText(game) {
  const o = game.outcome;
  if (!o) return '';
  if (o.draw) return `Drawn: ${o.reason}.`;
  if (!o.winners.length) return `Over: ${o.reason}.`;
  return `${o.winners.map((s) => seatName(game, s)).join(' and ')} won: ${o.reason}.`;
}

export async function gamePage(main, [id], app) {
  if (!id) { app.go('#/'); return; }
  const state = { game: null, legal: [], memoVersion: -1, memo: {}, stopped: false, confirmResign: false };
  const controller = new AbortController();
  const head = h('div', { class: 'game-head' });
  const seats = h('ul', { class: 'seats', 'aria-label': 'Players' });
  const actions = h('div', { class: 'table-actions', role: 'group', 'aria-label': 'Table commands' });
  const table = h('div', { class: 'table', 'data-testid': 'table' });
  const links = h('p', { class: 'links' });
  mount(main, h('article', { class: 'game' }, head, seats, table, actions, links));

  async function load() {
    const game = await get(`/games/${seg(id)}`, { signal: controller.signal });
    let legal = [];
    if (game.your_seat !== null && game.your_seat !== undefined && game.status === 'active') {
      legal = (await get(`/games/${seg(id)}/legal`, { signal: controller.signal })).commands;
    }
    state.game = game;
    state.legal = legal;
    app.refreshTurns();
  }

  // { concurrent: true } leaves out If-Match, for games without turns (Vamanos) where the
  // other seats' commands move the version on while this player clicks.
  async function play(command, { concurrent = false } = {}) {
    const game = state.game;
    try {
      const headers = concurrent ? {} : { 'if-match': `"${game.version}"` };
      const answer = await api('POST', `/games/${seg(id)}/commands`, command, { headers });
      state.game = answer.game;
      say('');
    } catch (e) {
      sayError(e);
    }
    try { await load(); } catch (e) { if (e.name !== 'AbortError') sayError(e); }
    await draw();
  }

  function tableButtons() {
    const game = state.game;
    const buttons = [];
    const offered = state.legal.filter((l) => TABLE_COMMANDS.has(l.command.type));
    const types = new Set(offered.map((l) => l.command.type));
    if (types.has('accept_draw')) buttons.push(h('p', { class: 'notice', role: 'note' }, 'Your opponent offers a draw.'));
    if (types.has('accept_takeback')) buttons.push(h('p', { class: 'notice', role: 'note' }, 'Your opponent asks to take back a move.'));
    for (const entry of offered) {
      const type = entry.command.type;
      if (type === 'resign') continue;
      buttons.push(h('button', { type: 'button', class: 'secondary', 'data-command': type, onclick: () => play(entry.command) }, LABELS[type] || entry.notation));
    }
    if (game.status === 'active' && game.your_seat !== null && game.your_seat !== undefined && types.has('resign')) {
      buttons.push(h('button', {
        type: 'button', class: 'secondary', 'data-command': 'request_takeback',
        onclick: async () => {
          // The server takes back my last turn (its answer says so if I have not moved yet).
          try { await play({ type: 'request_takeback' }); } catch (e) { sayError(e); }
        },
      }, 'Ask to take back my last turn'));
      const resign = offered.find((l) => l.command.type === 'resign');
      buttons.push(state.confirmResign
        ? h('span', { class: 'row' },
          h('button', { type: 'button', class: 'danger', 'data-command': 'resign', onclick: () => { state.confirmResign = false; play(resign.command); } }, 'Yes, resign'),
          h('button', { type: 'button', class: 'secondary', onclick: () => { state.confirmResign = false; draw(); } }, 'Keep playing'))
        : h('button', { type: 'button', class: 'secondary', 'data-command': 'resign-ask', onclick: () => { state.confirmResign = true; draw().then(() => actions.querySelector('.danger')?.focus()); } }, 'Resign…'));
    }
    return buttons;
  }

  async function draw() {
    const game = state.game;
    if (!game) return;
    const mySeat = game.your_seat === undefined ? null : game.your_seat;
    const spectator = mySeat === null;
    const kindName = kindTitle(game.kind);
    app.title(`${kindName} · Avalanche`);
    let turnText;
    if (game.status === 'open') turnText = 'Waiting for players to join.';
    else if (game.status === 'finished') turnText = outcomeText(game);
    else if (game.your_turn) turnText = 'Your turn.';
    else turnText = `Waiting for ${game.to_act.map((s) => seatName(game, s)).join(', ')}.`;
    mount(head,
      h('h1', {}, kindName, game.variant && game.variant !== 'standard' ? h('small', {}, ` ${game.variant}`) : null),
      h('p', { class: ['turn', game.your_turn && 'mine'], 'data-testid': 'turn', 'aria-live': 'polite' }, turnText),
      spectator ? h('p', { class: 'muted', 'data-testid': 'spectator' }, 'You are watching this game.') : null);
    mount(seats, (game.seats || []).map((s) => h('li', { class: [game.to_act.includes(s.seat) && 'to-act'] },
      h('span', { class: 'seat-name' }, s.player_name ? h('bdi', { title: s.player_display_name || '' }, s.player_name) : 'free seat',
        s.player_display_name ? h('small', { class: 'muted player-tag' }, ` ${s.player_display_name.slice(s.player_name.length).trim()}`) : null,
        s.seat === mySeat ? ' (you)' : ''),
      game.to_act.includes(s.seat) && game.status === 'active' ? h('span', { class: 'badge' }, 'to act') : null,
      s.on_vacation ? h('span', { class: 'muted' }, ' on vacation') : null,
      clockText(s))));
    if (game.status === 'open' && mySeat === null && app.me) {
      mount(actions, h('button', {
        type: 'button',
        onclick: async () => {
          try { await post(`/games/${seg(id)}/join`, {}); await load(); await draw(); } catch (e) { sayError(e); }
        },
      }, 'Take a seat'));
    } else {
      mount(actions, tableButtons());
    }
    mount(links, h('a', { href: `#/replay/${seg(game.id)}` }, 'Replay, audit and record'),
      game.parent ? [' · ', h('a', { href: `#/replay/${seg(game.parent.game)}/${game.parent.version}` }, `forked from version ${game.parent.version} of another game`)] : null);
    if (state.memoVersion !== game.version) {
      state.memo = {};
      state.memoVersion = game.version;
    }
    const root = h('div', { class: 'table-root' });
    table.replaceChildren(root);
    const readOnly = spectator || game.status !== 'active';
    await drawTable(root, game.kind, {
      game,
      view: game.view,
      legal: readOnly ? [] : state.legal.filter((l) => !TABLE_COMMANDS.has(l.command.type)),
      seat: mySeat,
      play,
      readOnly,
      memo: state.memo,
    });
    main.dataset.version = String(game.version);
    main.dataset.status = game.status;
  }

  async function follow() {
    while (!state.stopped) {
      try {
        const page = await get(`/games/${seg(id)}/events?after=${state.game.version}&wait=25&limit=1`, { signal: controller.signal });
        if (state.stopped) return;
        if (page.version > state.game.version) {
          await load();
          await draw();
        }
      } catch (e) {
        if (e.name === 'AbortError' || state.stopped) return;
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    }
  }

  try {
    await load();
  } catch (e) {
    if (e.name === 'AbortError') return undefined;
    mount(main, h('h1', {}, 'Game not found'), h('p', {}, e.detail || String(e)), h('p', {}, h('a', { href: '#/' }, 'Back to the lobby')));
    return undefined;
  }
  await draw();
  performance.mark('avalanche:table-drawn');
  main.dataset.drawn = String(Math.round(performance.now()));
  follow();
  return () => {
    state.stopped = true;
    controller.abort();
  };
}
