// The game page shell: title, seats and players, whose turn, each seat's clock, the outcome,
// the table commands that GET /legal offers, a status line for errors, live updates by
// long-polling GET /v1/games/{id}/events (fetch with the Authorization header), and the table
// itself drawn by tables/<kind>.js through renderTable(root, ctx).

import { get, post, api, seg } from './api.js';
import { h, mount, deadline, say, sayError, seatName, withNames, kindTitle, field, orSay } from './dom.js';
import { rematchButton, inviteByName } from './club.js';
import { kinds } from './lobby.js';
import { talk } from './talk.js';

/** Commands common to every game, as GET /v1/kinds names them (`table_commands`): the shell
 * offers them, the table modules never see them. */
const TABLE_COMMANDS = new Set();
async function learnTableCommands() {
  if (TABLE_COMMANDS.size) return;
  for (const kind of await kinds()) for (const type of kind.table_commands) TABLE_COMMANDS.add(type);
}

const LABELS = {
  offer_draw: 'Offer a draw',
  accept_draw: 'Accept the draw',
  decline_draw: 'Decline the draw',
  accept_takeback: 'Accept the takeback',
  decline_takeback: 'Decline the takeback',
  withdraw_takeback: 'Withdraw my takeback request',
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

/** The end of a game in players' words: "Ana won: Ben resigned.", never "seat 1". A game
 * superseded by a takeback was not drawn nor won: it was taken back. */
export function outcomeText(game) {
  const o = game.outcome;
  if (game.superseded) return 'Taken back: play goes on in the game that continues it.';
  if (!o) return '';
  const reason = withNames(game, o.reason);
  if (o.draw) return `Drawn: ${reason}.`;
  if (!o.winners.length) return `Over: ${reason}.`;
  return `${o.winners.map((s) => seatName(game, s)).join(' and ')} won: ${reason}.`;
}

/** What a game event did, in words: the move's notation when the event has one. */
export function eventWords(game, ev) {
  const data = ev.data || {};
  const inner = data.event || {};
  const who = /^seat:(\d+)$/.exec(ev.actor || '');
  const name = who ? seatName(game, Number(who[1])) : (ev.actor === 'system' ? 'The server' : 'A player');
  const notation = inner.notation || data.notation;
  if (notation) return `${name}: ${notation}`;
  const words = {
    created: 'The game was created', seat_taken: `${seatName(game, data.seat)} took a seat`,
    started: 'The game began', resigned: `${seatName(game, data.seat)} resigned`,
    draw_offered: `${name} offered a draw`, draw_declined: `${name} declined the draw`,
    draw_accepted: `${name} accepted the draw`, takeback_requested: `${name} asked to take back a move`,
    takeback_declined: `${name} declined the takeback`, takeback_accepted: `${name} accepted the takeback`,
    takeback_withdrawn: `${name} withdrew the takeback request`, takeback_agreed: 'The takeback was agreed',
    timed_out: `${seatName(game, data.seat)} ran out of time`, finished: 'The game ended',
    seed_revealed: 'The seed was revealed', forked: 'Play went on from here in a new game',
    record_broken: `The record breaks at half-turn ${data.half_turn} (${data.text}): ${data.reason}`,
    annotated: "The record's comments and annotation glyphs were kept",
    said: `${name} wrote a message`, hidden: 'A message was deleted',
  }[ev.type];
  if (words) return words;
  const type = String(ev.type || '').replace(/^game\./, '').replaceAll('_', ' ');
  return `${name}: ${type}`;
}

export async function gamePage(main, [first], app) {
  if (!first) { app.go('#/'); return undefined; }
  await learnTableCommands();
  // The game shown: a takeback moves the page on to the game that continues it.
  let id = first;
  const state = { game: null, legal: [], memoVersion: -1, memo: {}, stopped: false, confirmResign: false, pendingMoves: null, pendingAt: null };
  const controller = new AbortController();
  const head = h('div', { class: 'game-head' });
  const seats = h('ul', { class: 'seats', 'aria-label': 'Players' });
  const notices = h('div', { class: 'notices', 'aria-live': 'polite' });
  const actions = h('div', { class: 'table-actions', role: 'group', 'aria-label': 'Table commands' });
  const table = h('div', { class: 'table', 'data-testid': 'table' });
  const links = h('p', { class: 'links' });
  // The thread beside the table (below it on a phone).
  const side = h('div', { class: 'game-side' });
  let chat = null;
  const jump = h('div');
  mount(main, h('article', { class: 'game' }, head, seats, jump, notices,
    h('div', { class: 'game-body' }, h('div', { class: 'game-main' }, table, actions), side), links));
  const seated = () => state.game && state.game.your_seat != null;

  async function load() {
    const asked = id;
    const game = await get(`/games/${seg(asked)}`, { signal: controller.signal });
    // Another load moved the page on to the continuation meanwhile: this answer is stale.
    if (asked !== id) return load();
    const before = state.game;
    // Seen live: an agreed takeback supersedes this game; the page goes on in its continuation
    // (the board at the taken-back position), in place, as soon as the continuation is there.
    if (before && before.id === game.id && !before.continued_in && game.superseded && game.continued_in) {
      id = game.continued_in;
      app.replaceHash(`#/game/${seg(asked)}`, `#/game/${seg(id)}`);
      say('The takeback was accepted: play goes on from before the moves taken back.');
      state.game = null;
      return load();
    }
    let legal = [];
    if (game.your_seat != null && game.status === 'active') {
      legal = (await get(`/games/${seg(asked)}/legal`, { signal: controller.signal })).commands;
    }
    if (asked !== id) return load();
    state.game = game;
    state.legal = legal;
    await pendingMoves();
    app.refreshTurns();
    return undefined;
  }

  // The moves a pending takeback would take back, in their notation (read from the events
  // after the version it goes back to).
  async function pendingMoves() {
    const request = state.game.takeback;
    if (!request) { state.pendingMoves = null; state.pendingAt = null; return; }
    if (state.pendingAt === `${id}@${request.version}@${state.game.version}`) return;
    try {
      const page = await get(`/games/${seg(id)}/events?after=${request.version}&limit=50`, { signal: controller.signal });
      state.pendingMoves = page.events
        .filter((ev) => String(ev.type).startsWith('game.') && /^seat:/.test(ev.actor || ''))
        .map((ev) => (ev.data && ev.data.event && ev.data.event.notation) || eventWords(state.game, ev));
      state.pendingAt = `${id}@${request.version}@${state.game.version}`;
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      state.pendingMoves = [];
    }
  }

  // { concurrent: true } leaves out If-Match, for games without turns (Vamanos), where the
  // other seats' commands move the version on while this player clicks.
  async function play(command, { concurrent = false } = {}) {
    const game = state.game;
    try {
      const headers = concurrent ? {} : { 'if-match': `"${game.version}"` };
      await api('POST', `/games/${seg(id)}/commands`, command, { headers });
      say('');
    } catch (e) {
      sayError(e);
    }
    try { await load(); } catch (e) { if (e.name !== 'AbortError') sayError(e); }
    await draw();
  }

  /** What waits for an answer at the table, said to each side. */
  function pendingNotices() {
    const game = state.game;
    const out = [];
    const mine = game.your_seat;
    const moves = state.pendingMoves && state.pendingMoves.length ? state.pendingMoves.join(', ') : 'the last turn';
    const others = game.seats.filter((x) => x.seat !== mine).map((x) => seatName(game, x.seat)).join(', ');
    // What `seat` asked, said to them and to the others.
    const notice = (testid, seat, asked, asks) => out.push(h('p', { class: 'notice', role: 'note', 'data-testid': testid },
      seat === mine ? `You ${asked}: waiting for ${others} to answer.` : `${seatName(game, seat)} ${asks}.`));
    if (game.takeback) notice('takeback-pending', game.takeback.seat, `asked to take back ${moves}`, `asks to take back ${moves}`);
    if (game.draw_offer != null) notice('draw-pending', game.draw_offer, 'offered a draw', 'offers a draw');
    return out;
  }

  function tableButtons() {
    const game = state.game;
    const buttons = [];
    const offered = state.legal.filter((l) => TABLE_COMMANDS.has(l.command.type));
    const types = new Set(offered.map((l) => l.command.type));
    for (const entry of offered) {
      const type = entry.command.type;
      if (type === 'resign') continue;
      buttons.push(h('button', { class: 'secondary', 'data-command': type, onclick: () => play(entry.command) }, LABELS[type] || entry.notation));
    }
    // A takeback goes back to just before the player's last turn: offered once they have
    // played one, and while no request waits.
    if (game.status === 'active' && seated() && types.has('resign') && game.turns_played > 0 && !game.takeback) {
      buttons.push(h('button', {
        class: 'secondary', 'data-command': 'request_takeback',
        onclick: () => play({ type: 'request_takeback' }),
      }, 'Ask to take back my last turn'));
    }
    if (game.status === 'active' && seated() && types.has('resign')) {
      const resign = offered.find((l) => l.command.type === 'resign');
      buttons.push(state.confirmResign
        ? h('span', { class: 'row' },
          h('button', { class: 'danger', 'data-command': 'resign', onclick: () => { state.confirmResign = false; play(resign.command); } }, 'Yes, resign'),
          h('button', { class: 'secondary', onclick: () => { state.confirmResign = false; draw(); } }, 'Keep playing'))
        : h('button', { class: 'secondary', 'data-command': 'resign-ask', onclick: () => { state.confirmResign = true; draw().then(() => actions.querySelector('.danger')?.focus()); } }, 'Resign…'));
    }
    const rematch = rematchButton(game, app);
    if (rematch) buttons.push(rematch);
    return buttons;
  }

  async function draw() {
    const game = state.game;
    if (!game) return;
    const mySeat = game.your_seat ?? null;
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
    mount(notices,
      // The line above says it was taken back; this says where play goes on.
      game.superseded ? h('p', { class: 'notice', 'data-testid': 'taken-back' },
        game.continued_in
          ? h('a', { href: `#/game/${seg(game.continued_in)}`, 'data-testid': 'continuation' }, 'Go to the game that goes on')
          : h('span', { 'data-testid': 'continuation-coming' }, 'The game that goes on is still being set up: this page moves on to it as soon as it is there.')) : null,
      game.status === 'active' ? pendingNotices() : null);
    if (game.status === 'open') {
      mount(actions, openGameActions(game, mySeat));
      // While players are awaited, the invitation comes before the board (on a phone it would
      // be a screen below it).
      if (actions.nextElementSibling !== table) table.before(actions);
    } else {
      mount(actions, tableButtons());
      if (actions.previousElementSibling !== table) table.after(actions);
    }
    mount(links, h('a', { href: `#/replay/${seg(game.id)}` }, 'Replay, audit and record'),
      game.parent ? [' · ', h('a', { href: `#/replay/${seg(game.parent.game)}/${game.parent.version}` }, `goes on from version ${game.parent.version} of an earlier game`)] : null);
    if (state.memoVersion !== `${game.id}@${game.version}`) {
      state.memo = {};
      state.memoVersion = `${game.id}@${game.version}`;
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
    if (!readOnly) table.append(moveBox());
    if (!chat || chat.id !== game.id) {
      chat = { id: game.id, ...talk(game.id, app.me && app.me.id) };
      mount(side, chat.el);
      mount(jump, chat.jump);
    }
    main.dataset.version = String(game.version);
    main.dataset.status = game.status;
    main.dataset.game = game.id;
    chat.update(game, controller.signal).catch((e) => { if (e.name !== 'AbortError') sayError(e); });
  }

  /** A box to type a move in the game's notation, the legal list as its suggestions. The
   * game reads the text (GET /legal?text=): the one command it means is played, or the
   * server's reason and candidates are shown; a command that loses at once asks first. */
  function moveBox() {
    const entries = state.legal.filter((l) => !TABLE_COMMANDS.has(l.command.type) && l.notation);
    if (!entries.length) return h('span');
    const listId = `legal-${Math.random().toString(36).slice(2, 8)}`;
    const input = h('input', { name: 'move', list: listId, autocomplete: 'off', spellcheck: 'false', 'data-testid': 'move-input', placeholder: entries[0].notation });
    const warning = h('div', { class: 'notice losing', role: 'alert', 'data-testid': 'losing-warning', hidden: true });
    const ask = (read) => {
      warning.replaceChildren(
        h('p', {}, `${read.notation} ${read.consequence.says}.`),
        h('button', { class: 'danger', 'data-testid': 'play-losing', onclick: () => { warning.hidden = true; play(read.command, { concurrent: concurrentKind() }); } }, 'Play it anyway'),
        h('button', { class: 'secondary', onclick: () => { warning.hidden = true; input.focus(); } }, 'Cancel'));
      warning.hidden = false;
    };
    return h('form', {
      class: 'move-box', 'aria-label': 'Type a move',
      onsubmit: async (event) => {
        event.preventDefault();
        warning.hidden = true;
        const typed = input.value.trim();
        if (!typed) return;
        let read;
        try {
          read = (await get(`/games/${seg(id)}/legal?text=${encodeURIComponent(typed)}`)).commands[0];
        } catch (e) {
          const near = ((e.details && e.details.candidates) || []).map((c) => c.notation).slice(0, 8);
          const lead = e.code === 'text_ambiguous' ? 'It could be' : 'Legal moves like it';
          say(`${e.message}${near.length ? ` ${lead}: ${near.join(', ')}.` : ''}`, 'error');
          return;
        }
        if (!read) return;
        if (read.consequence && read.consequence.loses) {
          ask(read);
          return;
        }
        play(read.command, { concurrent: concurrentKind() });
      },
    },
    h('datalist', { id: listId }, entries.map((l) => h('option', { value: l.notation, label: l.consequence ? `${l.notation}: ${l.consequence.loses ? 'loses at once, ' : ''}${l.consequence.says}` : l.notation }))),
    field('Type a move', input, `In the game's notation, as the suggestions show (${entries.length} legal now); one that loses at once asks first.`),
    h('button', { type: 'submit', class: 'secondary' }, 'Play it'),
    warning);
  }
  // Vamanos has no turns: its commands go without If-Match (see play()).
  const concurrentKind = () => state.game && state.game.kind === 'vamanos';

  /** An open game: the invitation (its link to send), a seat to take, the creator's cancel. */
  function openGameActions(game, mySeat) {
    const out = [];
    const link = `${location.origin}${location.pathname}#/game/${seg(game.id)}`;
    if (mySeat !== null) {
      const box = h('input', { readonly: true, value: link, 'data-testid': 'invite-link', onfocus: (e) => e.target.select() });
      out.push(h('div', { class: 'invite card' },
        h('h2', {}, 'Invite a friend'),
        h('p', {}, 'Send this link to the people you want to play with (by mail or a message). Whoever opens it can take a seat, after a quick sign-up if they have no account; the game begins when every seat is taken.'),
        field('Link to this game', box),
        h('div', { class: 'row' },
          h('button', {
            class: 'secondary', 'data-testid': 'copy-invite',
            onclick: async () => {
              try { await navigator.clipboard.writeText(link); say('Link copied: send it to your friend.'); } catch { box.focus(); say('Select the link and copy it by hand.'); }
            },
          }, 'Copy the link'),
          game.seats.filter((x) => x.player_id).length === 1 ? h('button', {
            class: 'danger', 'data-command': 'cancel',
            onclick: orSay(async () => {
              await api('POST', `/games/${seg(game.id)}/commands`, { type: 'cancel' }, { headers: { 'if-match': `"${game.version}"` } });
              say('Game cancelled.');
              app.go('#/');
            }),
          }, 'Cancel this game') : null),
        inviteByName(game, app)));
    } else if (app.me) {
      out.push(h('button', {
        'data-command': 'join',
        onclick: orSay(async () => { await post(`/games/${seg(id)}/join`, {}); await load(); await draw(); }),
      }, 'Take a seat'));
    } else {
      // Back here after signing up, with "Take a seat" ready.
      sessionStorage.setItem('avalanche.return', `#/game/${seg(game.id)}`);
      out.push(h('p', { 'data-testid': 'sign-up-to-join' }, 'To take a seat at this game, ',
        h('a', { href: '#/account' }, 'sign up'), ' (a name is enough) or sign in: you come back here.'));
    }
    return out;
  }

  // Live updates: long-polls the events after the version shown; what others did that the
  // page must say (a declined offer or request) is read from those events.
  async function follow() {
    while (!state.stopped) {
      try {
        const shown = state.game;
        if (shown.superseded && !shown.continued_in) {
          // Taken back, and the game that goes on not written yet (the server writes it as
          // soon as its store lets it): this game has nothing more to say, so look again soon.
          await new Promise((resolve) => setTimeout(resolve, 3000));
          if (state.stopped) return;
          await load();
          await draw();
          continue;
        }
        const page = await get(`/games/${seg(id)}/events?after=${shown.version}&wait=25&limit=50`, { signal: controller.signal });
        if (state.stopped) return;
        if (page.version > shown.version) {
          // Said once the page shows the game it speaks of, so that a button pressed on
          // reading it acts on the new version.
          await load();
          await draw();
          tell(shown, page.events || []);
        }
      } catch (e) {
        if (e.name === 'AbortError' || state.stopped) return;
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    }
  }

  /** Says what another seat answered to this player's offer or request. */
  function tell(game, events) {
    const mine = game.your_seat;
    if (mine == null) return;
    for (const ev of events) {
      const by = /^seat:(\d+)$/.exec(ev.actor || '');
      if (!by || Number(by[1]) === mine) continue;
      const name = seatName(game, Number(by[1]));
      if (ev.type === 'draw_declined' && game.draw_offer === mine) say(`${name} declined your draw offer: play goes on.`);
      if (ev.type === 'takeback_declined' && game.takeback && game.takeback.seat === mine) say(`${name} declined your takeback request: play goes on.`);
      if (ev.type === 'takeback_withdrawn') say(`${name} withdrew the takeback request.`);
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
