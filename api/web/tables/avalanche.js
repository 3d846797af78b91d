// The Avalanche table (the card-collecting game). It draws the viewer's view and offers only
// the entries of the legal list: pick cards of one rank in the hand, then confirm the play the
// legal list names for exactly those cards (start, grow, stop or fall), or Snow Fall.
import {
  el, button, send, seatName, allMoves, pile, avalancheCard, rankName, endPanel, AVALANCHE_RANKS,
} from '../cards.js';

export function renderTable(root, ctx) {
  const { view, game } = ctx;
  const memo = ctx.memo || {};
  root.classList.add('card-table', 'avalanche-table');
  const tableCards = (view.table || []).reduce((n, set) => n + set.cards.length, 0);
  const toBeat = view.to_beat;

  // The centre: piles and the running avalanche.
  const centre = el('section', { class: 'centre', 'aria-label': 'Table' },
    el('div', { class: 'piles' },
      pile('Draw pile', view.draw_pile_size, { 'data-testid': 'draw-pile' }),
      pile('Neutral pile', view.neutral_pile_size, { 'data-testid': 'neutral-pile' })),
    el('div', { class: 'avalanche-run' },
      el('h3', { text: view.avalanche_running ? `Avalanche running: ${tableCards} card${tableCards === 1 ? '' : 's'}` : 'No avalanche running' }),
      toBeat ? el('p', { class: 'to-beat' },
        `Last set: ${toBeat.cards.length} × ${rankName(toBeat.cards[0])} by ${seatName(game, toBeat.seat)}`) : null,
      el('div', { class: 'sets' }, (view.table || []).map((set, i, all) =>
        el('div', { class: `set${i === all.length - 1 ? ' last' : ''}`, role: 'group', 'aria-label': `${seatName(game, set.seat)} played ${set.cards.join(' ')}` },
          el('div', { class: 'fan' }, set.cards.map((r) => avalancheCard(r, { class: 'small' }))),
          el('span', { class: 'who', text: seatName(game, set.seat) }))))));

  // Every seat: hand size, collected pile, out or retired.
  const seats = el('section', { class: 'seats-strip', 'aria-label': 'Players' },
    view.seats.map((s) => el('div', {
      class: `seat-box${view.turn === s.seat ? ' to-act' : ''}${s.seat === ctx.seat ? ' me' : ''}`,
      'data-seat': s.seat,
    },
    el('div', { class: 'seat-name', text: seatName(game, s.seat) + (view.turn === s.seat ? ' — to play' : '') }),
    el('div', { class: 'seat-facts' },
      el('span', { text: `hand ${s.hand_size}` }),
      el('span', { class: 'collected', text: `collected ${s.collected}` }),
      s.out ? el('span', { class: 'tag', text: 'out' }) : null,
      s.retired ? el('span', { class: 'tag', text: 'retired' }) : null))));

  root.append(centre, seats);

  const me = ctx.seat != null ? view.seats.find((s) => s.seat === ctx.seat) : null;
  if (me && me.hand && view.phase !== 'over') root.append(handSection(root, ctx, memo, me.hand, tableCards, toBeat));

  if (view.phase === 'over') {
    const rows = [['Player', 'Collected']].concat(view.seats.map((s) => [seatName(game, s.seat), String(s.collected)]));
    root.append(endPanel(ctx, 'Final scores: collected cards', rows));
  }
  root.append(...allMoves(ctx, root));
}

function handSection(root, ctx, memo, hand, tableCards, toBeat) {
  const plays = ctx.legal.filter((e) => e.command.type === 'play');
  const snow = ctx.legal.find((e) => e.command.type === 'snow_fall');
  const byRank = new Map();
  for (const r of [...hand].sort((a, b) => AVALANCHE_RANKS.indexOf(a) - AVALANCHE_RANKS.indexOf(b))) {
    byRank.set(r, (byRank.get(r) || 0) + 1);
  }
  let pick = memo.pick && byRank.get(memo.pick.rank) >= memo.pick.count ? memo.pick : null;
  const setPick = (p) => {
    memo.pick = p;
    root.replaceChildren();
    renderTable(root, ctx);
  };
  const canPlay = (rank, count) => plays.some((e) => e.command.cards.length === count && e.command.cards[0] === rank);

  const groups = [...byRank.entries()].map(([rank, held]) => {
    const cards = [];
    for (let i = 0; i < held; i += 1) {
      const count = i + 1;
      const chosen = pick && pick.rank === rank && i < pick.count;
      const face = avalancheCard(rank, { role: null, 'aria-label': null });
      if (canPlay(rank, count)) {
        cards.push(el('button', {
          class: `card-button${chosen ? ' chosen' : ''}`, 'aria-pressed': chosen ? 'true' : 'false',
          'aria-label': `${count} × ${rankName(rank)}`, 'data-rank': rank, 'data-count': count,
          on: { click: () => setPick(chosen && pick.count === count ? (count > 1 ? { rank, count: count - 1 } : null) : { rank, count }) },
        }, face));
      } else {
        cards.push(el('div', { class: 'card-slot', role: 'img', 'aria-label': rankName(rank) }, face));
      }
    }
    return el('div', { class: 'rank-group', role: 'group', 'aria-label': `${held} × ${rankName(rank)}` },
      el('div', { class: 'fan' }, cards),
      el('span', { class: 'group-size', text: held > 1 ? `×${held}` : '' }));
  });

  const actions = el('div', { class: 'actions', 'aria-live': 'polite' });
  if (snow) {
    actions.append(el('div', { class: 'choice' },
      button('Snow Fall', () => send(ctx, root, snow.command), { class: 'primary', 'data-action': 'snow_fall' }),
      el('span', { class: 'consequence', text: `Draw the top card of the draw pile (${ctx.view.draw_pile_size} left); your turn ends.` })));
  }
  if (pick) {
    const entry = plays.find((e) => e.command.cards.length === pick.count && e.command.cards[0] === pick.rank);
    if (entry) {
      actions.append(el('div', { class: 'choice' },
        button(`Play ${entry.command.cards.join(' ')}`, () => { memo.pick = null; send(ctx, root, entry.command); }, {
          class: 'primary', 'data-action': 'confirm', 'data-notation': entry.notation,
        }),
        el('span', { class: 'consequence', text: consequence(ctx, entry, tableCards, toBeat) })));
    }
  } else if (plays.length) {
    actions.append(el('p', { class: 'hint', text: snow ? 'Or pick cards of one rank to start an avalanche.' : 'Pick cards of one rank to play.' }));
  }

  return el('section', { class: 'my-hand', 'aria-label': 'Your hand' },
    el('h3', { text: `Your hand (${hand.length})` }),
    el('div', { class: 'hand' }, groups),
    actions);
}

// The consequence of a play, named from the word its legal notation gives ("play Q Q (fall)")
// and the cards on the table.
function consequence(ctx, entry, tableCards, toBeat) {
  const word = (entry.notation.match(/\((\w+)\)\s*$/) || [])[1];
  const k = entry.command.cards.length;
  const total = tableCards + k;
  switch (word) {
    case 'start': return `This starts an avalanche with ${k} × ${rankName(entry.command.cards[0])}.`;
    case 'grow': return `This grows the avalanche to ${total} cards; the next player must answer ${k} card${k > 1 ? 's' : ''}.`;
    case 'stop': return `This stops the avalanche: all ${total} cards go to the neutral pile, nobody scores them.`;
    case 'fall': return `This lets the avalanche fall: ${total} cards go to ${toBeat ? seatName(ctx.game, toBeat.seat) : 'the previous player'}.`;
    default: return entry.notation;
  }
}
