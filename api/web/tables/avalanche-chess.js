// Avalanche Chess: the board drawn from the view's FEN placement, and a turn chosen by clicking
// among GET /legal's entries only: the piece, one of its targets, the push (or none), confirm.
// Legal turns carry the move as from-to squares (`g1f3`, `e7e8q`, castling king-onto-rook
// `e1h1`), which is how entries are grouped by square; no rule of the game lives here.

import { h } from '../dom.js';

const FILES = 'abcdefgh';
const GLYPH = { k: '\u265A', q: '\u265B', r: '\u265C', b: '\u265D', n: '\u265E', p: '\u265F' };
const NAME = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };
const PROMOTION = { queen: 'Queen', rook: 'Rook', bishop: 'Bishop', knight: 'Knight' };

/** The FEN placement as a map square -> piece letter (upper case white). */
export function squaresOf(placement) {
  const board = new Map();
  (placement || '').split('/').forEach((row, i) => {
    let file = 0;
    for (const c of row) {
      if (/\d/.test(c)) file += Number(c);
      else { board.set(`${FILES[file]}${8 - i}`, c); file += 1; }
    }
  });
  return board;
}

function pieceName(letter) {
  if (!letter) return 'empty';
  return `${letter === letter.toUpperCase() ? 'white' : 'black'} ${NAME[letter.toLowerCase()]}`;
}

function turnsOf(legal) {
  return legal
    .filter((l) => l.command.type === 'turn' && typeof l.command.move === 'string')
    .map((l) => ({ ...l, from: l.command.move.slice(0, 2), to: l.command.move.slice(2, 4) }));
}

export function renderTable(root, ctx) {
  const memo = ctx.memo;
  const view = ctx.view || {};
  const board = squaresOf(view.placement);
  const turns = ctx.readOnly ? [] : turnsOf(ctx.legal);
  const promotions = ctx.readOnly ? [] : ctx.legal.filter((l) => l.command.type === 'promote');
  const others = ctx.readOnly ? [] : ctx.legal.filter((l) => l.command.type === 'claim_draw');
  const flipped = ctx.seat === 1;

  function redraw() {
    root.replaceChildren();
    renderTable(root, ctx);
  }

  const froms = new Set(turns.map((t) => t.from));
  const targets = memo.from ? turns.filter((t) => t.from === memo.from) : [];
  const targetSquares = new Set(targets.map((t) => t.to));
  const candidates = memo.to ? targets.filter((t) => t.to === memo.to) : [];
  const picked = memo.pick !== undefined ? candidates[memo.pick] : undefined;
  const pushSquares = new Set(candidates.map((t) => t.command.push).filter(Boolean));
  const last = view.last_turn;
  const lastSquares = new Set(last ? [last.from, last.to, last.push_from, last.push_to].filter(Boolean) : []);
  let checkSquare = null;
  if (view.check && view.side_to_act) {
    const king = view.side_to_act === 'white' ? 'K' : 'k';
    for (const [sq, p] of board) if (p === king) checkSquare = sq;
  }

  function choose(square) {
    // A push square the board marks picks that push.
    if (memo.to && pushSquares.has(square) && square !== memo.to && !targetSquares.has(square)) {
      memo.pick = candidates.findIndex((t) => t.command.push === square);
      redraw();
      root.querySelector('[data-testid="confirm"]')?.focus();
      return;
    }
    if (memo.to) {
      if (targetSquares.has(square) && square !== memo.to) { memo.to = square; delete memo.pick; }
      else { delete memo.to; delete memo.pick; }
    } else if (memo.from && targetSquares.has(square)) {
      memo.to = square;
      const n = turns.filter((t) => t.from === memo.from && t.to === square).length;
      if (n === 1) memo.pick = 0;
    } else if (memo.from === square) {
      delete memo.from;
    } else if (froms.has(square)) {
      memo.from = square;
      delete memo.to;
      delete memo.pick;
    }
    redraw();
    root.querySelector(`[data-square="${square}"]`)?.focus();
    if (memo.to) (root.querySelector('.pick-push button[aria-pressed="true"]') || root.querySelector('.pick-push button'))?.focus();
  }

  // The board's one tab stop: the square chosen, else the first piece that may move, else a1/h8.
  const focusSquare = memo.to || memo.from || [...froms][0] || (flipped ? 'h8' : 'a1');
  function moveFocus(event, sq) {
    const step = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] }[event.key];
    if (!step) return;
    event.preventDefault();
    const sign = flipped ? -1 : 1;
    const file = FILES.indexOf(sq[0]) + step[0] * sign;
    const rank = Number(sq[1]) + step[1] * sign;
    if (file < 0 || file > 7 || rank < 1 || rank > 8) return;
    const next = root.querySelector(`[data-square="${FILES[file]}${rank}"]`);
    if (!next) return;
    for (const b of root.querySelectorAll('.board .sq[tabindex="0"]')) b.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  }

  const cells = [];
  for (let r = 0; r < 8; r += 1) {
    for (let f = 0; f < 8; f += 1) {
      const file = flipped ? 7 - f : f;
      const rank = flipped ? r + 1 : 8 - r;
      const sq = `${FILES[file]}${rank}`;
      const piece = board.get(sq);
      const dark = (file + rank) % 2 === 1;
      const movable = froms.has(sq) && !memo.to;
      const target = targetSquares.has(sq) && !memo.to;
      const enabled = movable || target || sq === memo.from || (memo.to && (sq === memo.to || targetSquares.has(sq) || pushSquares.has(sq)));
      let label = `${sq}, ${pieceName(piece)}`;
      if (sq === memo.from) label += ', selected';
      else if (target) label += ', move here';
      if (sq === memo.to) label += ', chosen target';
      if (pushSquares.has(sq)) label += ', a push may go here: choose it';
      if (lastSquares.has(sq)) label += ', last turn';
      if (sq === checkSquare) label += ', in check';
      cells.push(h('button', {
        class: ['sq', dark ? 'dark' : 'light', piece && (piece === piece.toUpperCase() ? 'white' : 'black'),
          sq === memo.from && 'from', (target || sq === memo.to) && 'target', sq === memo.to && 'chosen',
          pushSquares.has(sq) && 'push', lastSquares.has(sq) && 'last', sq === checkSquare && 'check', movable && 'movable'],
        'data-square': sq,
        'data-piece': piece || '',
        'aria-label': label,
        // Every square can be reached with the arrow keys (one tab stop for the board); one
        // that cannot be chosen now says so rather than vanishing from the keyboard.
        'aria-disabled': enabled ? 'false' : 'true',
        tabindex: sq === focusSquare ? 0 : -1,
        onclick: () => { if (enabled) choose(sq); },
        onkeydown: (event) => moveFocus(event, sq),
      },
      // Glyph and coordinates are drawn by the stylesheet from data attributes: the square's
      // name ("e2, white pawn") is its only text, so what is seen and what is read agree.
      piece ? h('span', { class: 'glyph', 'aria-hidden': 'true', 'data-glyph': GLYPH[piece.toLowerCase()] }) : null,
      r === 7 ? h('span', { class: 'coord file', 'aria-hidden': 'true', 'data-coord': FILES[file] }) : null,
      f === 0 ? h('span', { class: 'coord rank', 'aria-hidden': 'true', 'data-coord': String(rank) }) : null));
    }
  }
  const boardEl = h('div', { class: 'board', role: 'group', 'aria-label': `Board, ${flipped ? 'black' : 'white'} at the bottom`, 'data-placement': view.placement || '' }, cells);

  const panel = h('div', { class: 'chess-panel' });
  const side = (seat) => {
    const info = (ctx.game.seats || []).find((s) => s.seat === seat);
    return (info && info.player_name) || (seat === 0 ? 'White' : 'Black');
  };
  panel.append(h('p', { class: 'sides' }, h('span', { class: 'side white' }, '\u2654 ', side(0)), ' vs ', h('span', { class: 'side black' }, '\u265A ', side(1))));
  if (view.check && !view.result) panel.append(h('p', { class: 'notice' }, `${view.side_to_act === 'white' ? 'White' : 'Black'} is in check.`));
  if (view.result) {
    const r = view.result;
    // In players' words: "Ana wins: Ben resigned"; a takeback is no result at all.
    const loser = r.winner === 0 || r.winner === 1 ? side(1 - r.winner) : null;
    const words = {
      resigned: `${loser} resigned`, timed_out: `${loser} ran out of time`, draw_agreed: 'draw by agreement',
    }[r.reason] || String(r.reason).replaceAll('_', ' ');
    if (r.reason === 'superseded') {
      panel.append(h('p', { class: 'notice', 'data-testid': 'result' }, 'Taken back: play goes on in the game that continues it.'));
    } else {
      panel.append(h('p', { class: 'notice', 'data-testid': 'result' }, r.winner == null ? 'Drawn' : `${side(r.winner)} wins`, `: ${words}.`));
    }
  }

  if (promotions.length) {
    const square = view.pending_promotion || '';
    panel.append(h('div', { class: 'pick', role: 'group', 'aria-label': `Promote your pawn on ${square}` },
      h('p', {}, `Your opponent pushed your pawn to ${square}: choose its piece.`),
      promotions.map((l) => h('button', { 'data-notation': l.notation, onclick: () => ctx.play(l.command) },
        PROMOTION[l.command.piece] || l.notation))));
  } else if (turns.length) {
    if (!memo.from) {
      panel.append(h('p', { class: 'hint' }, 'Your turn: choose a piece to move.'));
    } else if (!memo.to) {
      panel.append(h('p', { class: 'hint' }, `Choose where the ${NAME[(board.get(memo.from) || 'p').toLowerCase()]} on ${memo.from} goes.`),
        h('button', { class: 'secondary', onclick: () => { delete memo.from; redraw(); } }, 'Choose another piece'));
    } else {
      const pushes = candidates.map((t, i) => h('button', {
        class: 'secondary',
        'aria-pressed': memo.pick === i ? 'true' : 'false',
        'data-notation': t.notation,
        onclick: () => { memo.pick = i; redraw(); root.querySelector('[data-testid="confirm"]')?.focus(); },
      }, t.consequence && t.consequence.loses ? `${t.notation} (loses at once)` : t.notation));
      // A push the game names a loss is said before it is sent: the confirm button says so too.
      const loses = picked && picked.consequence && picked.consequence.loses;
      panel.append(h('div', { class: 'pick pick-push', role: 'group', 'aria-label': 'Choose the push' },
        h('p', {}, candidates.some((t) => t.command.push) ? 'Then push one of your opponent\u2019s pawns:' : 'This move has no push:'),
        pushes));
      if (loses) panel.append(h('p', { class: 'notice losing', role: 'alert', 'data-testid': 'losing-warning' }, `${picked.notation} ${picked.consequence.says}.`));
      panel.append(h('div', { class: 'row' },
        h('button', { class: loses ? 'danger' : undefined, 'data-testid': 'confirm', disabled: !picked, onclick: () => { const c = picked.command; for (const k of Object.keys(memo)) delete memo[k]; ctx.play(c); } },
          picked ? `Play ${picked.notation}${loses ? ' anyway' : ''}` : 'Play'),
        h('button', { class: 'secondary', onclick: () => { for (const k of Object.keys(memo)) delete memo[k]; redraw(); } }, 'Cancel')));
    }
  }
  for (const l of others) panel.append(h('button', { class: 'secondary', onclick: () => ctx.play(l.command) }, l.notation));

  const history = view.history || [];
  const rows = [];
  for (let i = 0; i < history.length; i += 2) {
    rows.push(h('li', {}, h('span', { class: 'ply' }, history[i]), history[i + 1] ? h('span', { class: 'ply' }, history[i + 1]) : null));
  }
  panel.append(h('h2', { class: 'small' }, 'Moves'),
    rows.length ? h('ol', { class: 'moves', 'data-testid': 'moves', tabindex: 0, 'aria-label': 'Moves played' }, rows) : h('p', { class: 'muted' }, 'No move yet.'));

  root.append(h('div', { class: 'chess' }, boardEl, panel));
}
