// The Vamanos table. No turns: every seat plays at once, so this page only ever offers the
// viewer's own legal entries (draw, place in a row, lay the last card face down) and draws
// everybody's rows and stacks as the view shows them; the shell redraws it live as the other
// players' cards arrive.
import { el, button, send, seatName, allMoves, pile, printed, vamanosCard, vamanosName, endPanel } from '../cards.js';

// No turns: another seat's command may move the version on between a redraw and a click.
const CONCURRENT = { concurrent: true };

const COMBINATIONS = {
  nothing: 'nothing', three_of_a_kind: 'three of a kind', four_of_a_kind: 'four of a kind',
  five_of_a_kind: 'five of a kind', all_different: 'all different',
};

export function renderTable(root, ctx) {
  const { view, game } = ctx;
  root.classList.add('card-table', 'vamanos-table');
  const players = view.players;
  const me = ctx.seat != null ? players.find((p) => p.seat === ctx.seat) : null;

  root.append(el('section', { class: 'round-bar', 'aria-label': 'Round and scores' },
    el('strong', { text: view.phase === 'over' ? `Game over after round ${view.round}` : `Round ${view.round}` }),
    el('span', { text: ` — first past ${view.target} wins` }),
    el('ul', { class: 'totals' }, players.map((p) => el('li', { 'data-seat': p.seat },
      `${seatName(game, p.seat)}: `, el('strong', { text: p.total }), ' pts',
      view.altas.includes(p.seat) ? el('span', { class: 'tag alta', text: 'Alta!' }) : null)))));

  if (me && view.phase !== 'over') root.append(mySide(root, ctx, me));

  // Once the game is over, everyone's rows and stacks side by side (mine included).
  const over = view.phase === 'over';
  root.append(el('section', { class: 'players', 'aria-label': over ? 'Players' : 'Other players' },
    players.filter((p) => over || !me || p.seat !== me.seat).map((p) => playerBox(ctx, p))));

  if (view.last_round) root.append(roundScores(ctx, view.last_round, view.phase === 'over' ? 'Last round' : 'Previous round'));

  if (view.phase === 'over') {
    const rows = [['Player', 'Last round', 'Total']].concat(players.map((p) => {
      const s = (view.last_round || []).find((x) => x.seat === p.seat);
      return [seatName(game, p.seat), s ? String(s.points) : '', String(p.total)];
    }));
    root.append(endPanel(ctx, 'Final scores', rows));
  }
  root.append(...allMoves(ctx, root));
}

function rowsView(rows, placeFor, ctx, root) {
  return el('div', { class: 'rows' }, rows.map((row, i) => {
    const entry = placeFor ? placeFor(i + 1) : null;
    const cards = el('div', { class: 'row-cards' }, row.map((c) => vamanosCard(c, { class: 'small' })),
      Array.from({ length: Math.max(0, 5 - row.length) }, () => el('div', { class: 'pc small empty' })));
    if (!entry) return el('div', { class: 'vrow', role: 'group', 'aria-label': `Row ${i + 1}: ${row.map(vamanosName).join(', ') || 'empty'}` }, printed('row-label', i + 1), cards);
    return el('button', {
      class: 'vrow target', 'data-action': 'place', 'data-row': i + 1, 'data-notation': entry.notation,
      'aria-label': `Place in row ${i + 1} (${row.length ? row.map(vamanosName).join(', ') : 'empty'})`,
      on: { click: () => send(ctx, root, entry.command, CONCURRENT) },
    }, printed('row-label', i + 1), cards);
  }));
}

function stacksView(stacks) {
  if (!stacks.length) return el('span', { class: 'none', text: 'no stack yet' });
  return el('div', { class: 'stacks' }, stacks.map((s, i) => el('div', { class: 'stack', role: 'group', 'aria-label': `Stack ${i + 1}: ${s.map(vamanosName).join(', ')}` },
    s.map((c) => vamanosCard(c, { class: 'tiny', role: null, 'aria-label': null })))));
}

function mySide(root, ctx, me) {
  const legal = ctx.legal;
  const draw = legal.find((e) => e.command.type === 'draw');
  const faceDown = legal.find((e) => e.command.type === 'lay_face_down');
  const places = new Map(legal.filter((e) => e.command.type === 'place').map((e) => [e.command.row, e]));
  const drawn = me.drawn;
  return el('section', { class: 'my-side', 'aria-label': 'Your cards' },
    el('div', { class: 'draw-area' },
      draw
        ? el('button', {
          class: 'pile-button', 'data-action': 'draw', 'aria-label': `Draw a card (${me.pile_size} in your pile)`,
          on: { click: () => send(ctx, root, draw.command, CONCURRENT) },
        }, el('div', { class: 'pc back' }, printed('count', me.pile_size)), el('span', { class: 'pile-label', text: 'Draw' }))
        : pile('Your pile', me.pile_size),
      el('div', { class: 'drawn' },
        drawn ? vamanosCard(drawn) : el('div', { class: 'pc empty' }),
        el('span', { class: 'pile-label', text: drawn ? 'Drawn: pick a row' : 'No card drawn' })),
      faceDown ? button('Lay it face down (Alta!)', () => send(ctx, root, faceDown.command, CONCURRENT), { class: 'primary', 'data-action': 'lay_face_down' }) : null),
    el('h3', { text: 'Your rows' }),
    rowsView(me.rows, places.size ? (row) => places.get(row) : null, ctx, root),
    el('h3', { text: `Your stacks (${me.stacks.length})` }),
    stacksView(me.stacks));
}

function playerBox(ctx, p) {
  return el('div', { class: `player-box${p.playing ? '' : ' idle'}`, 'data-seat': p.seat },
    el('div', { class: 'seat-name' }, seatName(ctx.game, p.seat),
      el('span', { class: 'score', text: `pile ${p.pile_size}${p.holds_card ? ' · holds a card' : ''}${p.face_down ? ' · laid face down' : ''}` })),
    rowsView(p.rows, null, ctx, null),
    el('div', { class: 'run-label', text: `Stacks (${p.stacks.length})` }),
    stacksView(p.stacks));
}

function roundScores(ctx, scores, title) {
  return el('section', { class: 'round-scores', 'aria-label': `${title} scoring` },
    el('h3', { text: `${title}: scoring` }),
    scores.map((s) => el('div', { class: 'seat-score', 'data-seat': s.seat },
      el('div', { class: 'seat-name' }, seatName(ctx.game, s.seat), el('span', { class: 'score', text: `${s.points >= 0 ? '+' : ''}${s.points} → ${s.total}` })),
      el('ul', {},
        s.stacks.map((st) => el('li', {},
          el('span', { class: 'mini-stack' }, st.cards.map((c) => vamanosCard(c, { class: 'tiny', role: null, 'aria-label': null }))),
          ` pictures: ${COMBINATIONS[st.pictures] || st.pictures}, colours: ${COMBINATIONS[st.colours] || st.colours} → ${st.points}`)),
        el('li', { text: `${s.cards_left} card${s.cards_left === 1 ? '' : 's'} left in the pile → ${minus(s.cards_left)}` }),
        el('li', { text: `${s.unfinished_rows} unfinished row${s.unfinished_rows === 1 ? '' : 's'} → ${minus(2 * s.unfinished_rows)}` })))));
}

function minus(n) {
  return n ? `−${n}` : '0';
}
