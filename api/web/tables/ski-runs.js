// The Ski Runs table. It draws the viewer's view (piles, every player's runs, my hand) and
// offers only the entries of the legal list: the draw choices grouped by their piles, a hand
// card to play when the legal list has a play of it, bank, pick up and end turn.
import { el, button, send, seatName, allMoves, pile, skiCard, skiName, endPanel, SKI_POINTS } from '../cards.js';

const PILE_WORDS = { draw_pile: 'draw pile', lift_pile: 'lift pile' };
const HAND_ORDER = ['lift', 'green_run', 'blue_run', 'red_run', 'black_run', 'avalanche'];

export function renderTable(root, ctx) {
  const { view, game } = ctx;
  root.classList.add('card-table', 'ski-runs-table');
  const turn = view.turn;
  const fallen = view.avalanches.length;
  const totalAvalanches = fallen + view.avalanches_to_end;

  root.append(el('section', { class: 'centre', 'aria-label': 'Table' },
    el('div', { class: 'piles' },
      pile('Draw pile', view.draw_pile_size, { 'data-testid': 'draw-pile' }),
      pile('Lift pile', view.lift_pile_size, { 'data-testid': 'lift-pile' }),
      pile('Discard pile', view.discard_pile_size),
      el('div', { class: 'avalanche-meter', role: 'img', 'aria-label': `${fallen} of ${totalAvalanches} avalanches played` },
        el('div', { class: 'meter-cards' }, Array.from({ length: totalAvalanches }, (_, i) => (i < fallen
          ? skiCard('avalanche', { class: 'tiny', role: null, 'aria-label': null })
          : el('div', { class: 'pc tiny empty' })))),
        el('div', { class: 'pile-label', text: `Avalanches ${fallen} / ${totalAvalanches}` }))),
    turn ? el('p', { class: 'turn-line' }, `${seatName(game, turn.seat)} to play`,
      turn.drawn ? ` — ${turn.plays_left} play${turn.plays_left === 1 ? '' : 's'} left` : ' — draw or bank') : null));

  root.append(el('section', { class: 'players', 'aria-label': 'Players' }, view.players.map((p) => playerBox(ctx, p))));

  const me = ctx.seat != null ? view.players.find((p) => p.seat === ctx.seat) : null;
  if (me && me.hand && view.end === null) root.append(handSection(root, ctx, me));

  if (view.end) {
    const rows = [['Player', 'Banked runs', 'Score']].concat(view.players.map((p) => [
      seatName(game, p.seat),
      p.banked_runs.map((r) => runPoints(r).label).join(' + ') || 'none',
      String(p.score),
    ]));
    root.append(endPanel(ctx, 'Final scores', rows));
  }
  root.append(...allMoves(ctx, root));
}

// The points printed on a run's cards, and the bonus of the rules' table for 5 or more run
// cards. Shown beside the server's total, which is what counts.
function runPoints(run) {
  const runCards = run.cards.filter((c) => SKI_POINTS[c]);
  const points = runCards.reduce((n, c) => n + SKI_POINTS[c], 0);
  const bonus = runCards.length >= 5 ? 4 : 0;
  return { points, bonus, label: bonus ? `${points}+${bonus}` : String(points) };
}

function runRow(run, label) {
  return el('div', { class: 'ski-run', role: 'group', 'aria-label': `${label}: ${run.cards.map(skiName).join(', ')}` },
    run.cards.map((c) => skiCard(c, { class: 'small' })));
}

function playerBox(ctx, p) {
  const { view, game } = ctx;
  const toAct = view.turn && view.turn.seat === p.seat;
  return el('div', { class: `player-box${toAct ? ' to-act' : ''}${p.seat === ctx.seat ? ' me' : ''}`, 'data-seat': p.seat },
    el('div', { class: 'seat-name' }, seatName(game, p.seat), toAct ? ' — to play' : '', p.retired ? ' (retired)' : '',
      el('span', { class: 'score', text: `${p.score} pts` })),
    el('div', { class: 'seat-facts' },
      el('span', { text: `hand ${p.hand_size}` }),
      view.quiet_seats.includes(p.seat) ? el('span', { class: 'tag', text: 'quiet' }) : null),
    el('div', { class: 'runs' },
      el('div', { class: 'run-block' }, el('span', { class: 'run-label', text: 'Unbanked run' }),
        p.unbanked_run ? runRow(p.unbanked_run, 'Unbanked run') : el('span', { class: 'none', text: 'none' })),
      el('div', { class: 'run-block' }, el('span', { class: 'run-label', text: `Banked runs (${p.banked_runs.length})` }),
        p.banked_runs.length ? p.banked_runs.map((r, i) => {
          const s = runPoints(r);
          return el('div', { class: 'banked' }, runRow(r, `Banked run ${i + 1}`),
            el('span', { class: 'run-points', text: `${s.points} pts${s.bonus ? ` + ${s.bonus} bonus` : ''}` }));
        }) : el('span', { class: 'none', text: 'none' }))));
}

function handSection(root, ctx, me) {
  const legal = ctx.legal;
  const plays = new Map(legal.filter((e) => e.command.type === 'play').map((e) => [e.command.card, e]));
  const draws = legal.filter((e) => e.command.type === 'draw');
  const others = legal.filter((e) => ['pick_up', 'bank', 'end_turn'].includes(e.command.type));
  const hand = [...me.hand].sort((a, b) => HAND_ORDER.indexOf(a) - HAND_ORDER.indexOf(b));

  const cards = hand.map((c) => {
    const entry = plays.get(c);
    if (!entry) return el('div', { class: 'card-slot' }, skiCard(c));
    return el('button', {
      class: 'card-button playable', 'aria-label': `Play ${skiName(c)}`,
      'data-action': 'play', 'data-card': c, 'data-notation': entry.notation,
      on: { click: () => send(ctx, root, entry.command) },
    }, skiCard(c, { role: null, 'aria-label': null }));
  });

  const drawLabel = (e) => {
    const [a, b] = e.command.from;
    return a === b ? `Draw 2 from the ${PILE_WORDS[a] || a}` : `Draw 1 from the ${PILE_WORDS[a] || a} + 1 from the ${PILE_WORDS[b] || b}`;
  };
  const otherLabel = { pick_up: 'Pick up: 1 lift + 4 cards', bank: 'Bank the run', end_turn: 'End turn' };
  const actions = el('div', { class: 'actions' },
    draws.map((e) => button(drawLabel(e), () => send(ctx, root, e.command), { class: 'primary', 'data-action': 'draw', 'data-notation': e.notation })),
    others.map((e) => button(otherLabel[e.command.type], () => send(ctx, root, e.command), {
      class: e.command.type === 'end_turn' ? '' : 'primary', 'data-action': e.command.type, 'data-notation': e.notation,
    })),
    plays.size ? el('p', { class: 'hint', text: 'Click a highlighted card to play it.' }) : null);

  return el('section', { class: 'my-hand', 'aria-label': 'Your hand' },
    el('h3', { text: `Your hand (${me.hand.length})` }),
    el('div', { class: 'hand' }, cards),
    actions);
}
