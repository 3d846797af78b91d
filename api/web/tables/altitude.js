// The Altitude table. Each mountain is drawn as floors of overlapping cards (the card of floor
// k, slot j sits half over slots j and j+1 of floor k-1, as the view's positions say). The
// viewer picks a card (the drawn one or one from the hand); the places where the legal list
// lets that card go light up; a click on one names the move, a second click confirms it.
import { el, button, send, seatName, allMoves, pile, printed, altitudeCard, altitudeName, endPanel, cap } from '../cards.js';

const key = (seat, at) => `${seat}:${at.floor}:${at.slot}`;

export function renderTable(root, ctx) {
  const { view, game } = ctx;
  const memo = ctx.memo || {};
  root.classList.add('card-table', 'altitude-table');
  const redraw = () => { root.replaceChildren(); renderTable(root, ctx); };
  const legal = ctx.legal;
  const mine = ctx.seat != null ? ctx.seat : null;
  const drawn = view.drawn && mine !== null && view.turn === mine ? view.drawn : null;

  // Which card the viewer is choosing a place for: the drawn card by default.
  const usable = (id) => legal.some((e) => e.command.card === id || (drawn && drawn.id === id && ['discard', 'lay_on_opponent', 'replace'].includes(e.command.type)));
  let source = memo.source !== undefined && usable(memo.source) ? memo.source : null;
  if (source === null && drawn && usable(drawn.id)) source = drawn.id;
  if (source === null) {
    const first = view.hand.find((c) => usable(c.id));
    if (first && view.phase === 'laying_hands') source = first.id;
  }
  const entriesFor = (id) => legal.filter((e) => e.command.card === id
    || (drawn && drawn.id === id && ['discard', 'lay_on_opponent', 'replace'].includes(e.command.type)));
  const targets = new Map();
  for (const e of source !== null ? entriesFor(source) : []) {
    const c = e.command;
    if (!c.at) continue;
    const seat = c.type === 'lay_on_opponent' ? c.opponent : mine;
    const k = key(seat, c.at);
    if (!targets.has(k)) targets.set(k, []);
    targets.get(k).push(e);
  }
  const chosen = memo.chosen && legal.find((e) => e.notation === memo.chosen) ? legal.find((e) => e.notation === memo.chosen) : null;
  const choose = (entry) => { memo.chosen = entry ? entry.notation : null; redraw(); };

  const toAct = view.to_act || [];
  root.append(el('section', { class: 'centre', 'aria-label': 'Table' },
    el('div', { class: 'piles' },
      pile('Deck', view.deck_size, { 'data-testid': 'deck' }),
      pile('Discard', view.discard_size),
      el('p', { class: 'turn-line', text: phaseLine(ctx, toAct) }))));

  // My side: the drawn card and the hand, and the non-place choices.
  if (mine !== null && view.phase !== 'over') root.append(mySide(root, ctx, memo, { drawn, source, redraw, chosen, choose }));

  // Mountains: mine first.
  const order = [...view.players].sort((a, b) => (a.seat === mine ? -1 : b.seat === mine ? 1 : a.seat - b.seat));
  root.append(el('section', { class: 'mountains', 'aria-label': 'Mountains' },
    order.map((p) => mountainBox(ctx, p, targets, chosen, choose))));

  if (view.phase === 'over') {
    const rows = [['Player', 'Floors', 'Animals ≥ 4', 'Saint-Bernards', 'Hand laid', 'Total']].concat(view.players.map((p) => {
      const s = p.score;
      return s ? [seatName(game, p.seat), s.floors, s.high_animals, s.saint_bernards, s.hand_laid_out, s.total].map(String)
        : [seatName(game, p.seat), String(p.height), '', '', '', ''];
    }));
    root.append(endPanel(ctx, 'Final scores', rows));
  }
  root.append(...allMoves(ctx, root));
}

function phaseLine(ctx, toAct) {
  const { view, game } = ctx;
  switch (view.phase) {
    case 'not_started': return 'Waiting for the deal';
    case 'choosing': return `Each player returns 2 of 6 cards — waiting for ${toAct.map((s) => seatName(game, s)).join(', ') || 'nobody'}`;
    case 'playing': return `${seatName(game, view.turn)} to play${view.turns_left > 1 ? ` (${view.turns_left} turns)` : ''}${view.must_use_drawn ? ' — has drawn' : ''}`;
    case 'laying_hands': return `Deck empty: ${seatName(game, view.turn)} lays a hand card or passes`;
    case 'over': return 'Game over';
    default: return view.phase;
  }
}

function mySide(root, ctx, memo, { drawn, source, redraw, chosen, choose }) {
  const { view } = ctx;
  const legal = ctx.legal;
  const section = el('section', { class: 'my-side', 'aria-label': 'Your cards' });

  if (view.phase === 'choosing') {
    const returns = legal.filter((e) => e.command.type === 'return_cards');
    const picked = (memo.returns || []).filter((id) => view.hand.some((c) => c.id === id));
    const toggle = (id) => {
      memo.returns = picked.includes(id) ? picked.filter((x) => x !== id) : [...picked, id].slice(-2);
      redraw();
    };
    section.append(el('h3', { text: returns.length ? 'Your 6 cards: pick the 2 to return to the deck' : 'Your cards (returned, waiting for the others)' }),
      el('div', { class: 'hand' }, view.hand.map((c) => (returns.length
        ? el('button', {
          class: `card-button${picked.includes(c.id) ? ' chosen' : ''}`, 'aria-pressed': String(picked.includes(c.id)),
          'aria-label': `Return ${altitudeName(c)}`, 'data-card-id': c.id, on: { click: () => toggle(c.id) },
        }, altitudeCard(c, { role: null, 'aria-label': null }))
        : altitudeCard(c)))));
    const entry = picked.length === 2 && returns.find((e) => e.command.cards.length === 2 && picked.every((id) => e.command.cards.includes(id)));
    if (entry) {
      section.append(el('div', { class: 'actions' }, button(`Confirm: ${entry.notation}`, () => { memo.returns = []; send(ctx, root, entry.command); }, {
        class: 'primary', 'data-action': 'confirm', 'data-notation': entry.notation,
      })));
    }
    return section;
  }

  const draw = legal.find((e) => e.command.type === 'draw');
  const discard = legal.find((e) => e.command.type === 'discard');
  const pass = legal.find((e) => e.command.type === 'pass');
  const selectable = (id) => legal.some((e) => e.command.card === id) || (drawn && drawn.id === id && legal.length > 0);
  const cardChoice = (c, label) => {
    if (!selectable(c.id)) return el('div', { class: 'card-slot' }, altitudeCard(c));
    const on = source === c.id;
    return el('button', {
      class: `card-button${on ? ' chosen' : ''}`, 'aria-pressed': String(on),
      'aria-label': `${label} ${altitudeName(c)}: show where it may go`, 'data-card-id': c.id, 'data-action': 'source',
      on: { click: () => { memo.source = c.id; memo.chosen = null; redraw(); } },
    }, altitudeCard(c, { role: null, 'aria-label': null }));
  };

  section.append(el('div', { class: 'draw-area' },
    draw ? el('button', {
      class: 'pile-button', 'data-action': 'draw', 'aria-label': `Draw the top card of the deck (${view.deck_size} left)`,
      on: { click: () => send(ctx, root, draw.command) },
    }, el('div', { class: 'pc back' }, printed('count', view.deck_size)), el('span', { class: 'pile-label', text: 'Draw' })) : null,
    drawn ? el('div', { class: 'drawn' }, cardChoice(drawn, 'Drawn card'), el('span', { class: 'pile-label', text: 'Drawn' })) : null,
    el('div', { class: 'hand-box' },
      el('div', { class: 'hand' }, view.hand.map((c) => cardChoice(c, 'Hand card'))),
      el('span', { class: 'pile-label', text: `Your hand (${view.hand.length})` }))));

  const actions = el('div', { class: 'actions', 'aria-live': 'polite' });
  if (chosen) {
    actions.append(el('div', { class: 'choice' },
      el('span', { class: 'consequence', text: `${cap(chosen.notation)}.` }),
      button('Confirm', () => { memo.chosen = null; memo.source = undefined; send(ctx, root, chosen.command); }, {
        class: 'primary', 'data-action': 'confirm', 'data-notation': chosen.notation,
      }),
      button('Cancel', () => choose(null))));
  } else if (source !== null && legal.some((e) => e.command.at)) {
    actions.append(el('p', { class: 'hint', text: 'Highlighted places show where the chosen card may go.' }));
  }
  if (discard && source === (drawn && drawn.id)) {
    actions.append(button(`Discard the ${altitudeName(drawn)}`, () => send(ctx, root, discard.command), { 'data-action': 'discard', 'data-notation': discard.notation }));
  }
  if (pass) actions.append(button('Pass', () => send(ctx, root, pass.command), { 'data-action': 'pass', 'data-notation': pass.notation }));
  section.append(actions);
  return section;
}

// A mountain: cards placed by floor and slot; the legal places for the chosen card as buttons.
function mountainBox(ctx, p, targets, chosen, choose) {
  const { view, game } = ctx;
  const placed = new Map(p.mountain.map((m) => [key(p.seat, m.at), m]));
  const spots = [];
  for (const m of p.mountain) spots.push({ at: m.at, placed: m });
  for (const [k, entries] of targets) {
    if (!k.startsWith(`${p.seat}:`)) continue;
    const at = entries[0].command.at;
    if (!placed.has(k)) spots.push({ at, placed: null });
  }
  const xs = spots.map((s) => s.at.slot + (s.at.floor - 1) / 2);
  const minX = xs.length ? Math.min(...xs) : 0;
  const width = xs.length ? Math.max(...xs) - minX + 1 : 1;
  const floors = spots.length ? Math.max(...spots.map((s) => s.at.floor)) : 1;
  const area = el('div', { class: 'mountain', role: 'group', 'aria-label': `${seatName(game, p.seat)}'s mountain, ${p.height} floors` });
  area.style.setProperty('--cols', String(width));
  area.style.setProperty('--floors', String(floors));
  spots.sort((a, b) => a.at.floor - b.at.floor || a.at.slot - b.at.slot);
  for (const s of spots) {
    const k = key(p.seat, s.at);
    const entries = targets.get(k) || [];
    const where = `floor ${s.at.floor} slot ${s.at.slot}`;
    let node;
    if (entries.length) {
      const isChosen = chosen && entries.some((e) => e.notation === chosen.notation);
      node = el('button', {
        class: `spot target kind-${entries[0].command.type}${s.placed ? ' occupied' : ''}${isChosen ? ' chosen' : ''}`,
        'aria-label': entries.map((e) => e.notation).join(' / '), 'data-action': 'place', 'data-seat': p.seat, 'data-floor': s.at.floor, 'data-slot': s.at.slot,
        on: { click: () => choose(entries.length === 1 || !isChosen ? entries[0] : entries[(entries.findIndex((e) => e.notation === chosen.notation) + 1) % entries.length]) },
      }, s.placed ? altitudeCard(s.placed.card, { role: null, 'aria-label': null }) : el('span', { class: 'ghost', text: '+' }));
    } else {
      node = el('div', { class: `spot${s.placed && s.placed.covered ? ' covered' : ''}`, role: 'img', 'aria-label': `${altitudeName(s.placed.card)} at ${where}` },
        altitudeCard(s.placed.card, { role: null, 'aria-label': null }));
    }
    node.style.setProperty('--x', String(s.at.slot + (s.at.floor - 1) / 2 - minX));
    node.style.setProperty('--floor', String(s.at.floor - 1));
    area.append(node);
  }
  const me = p.seat === ctx.seat;
  return el('div', { class: `mountain-box${me ? ' me' : ''}${view.turn === p.seat && view.phase !== 'over' ? ' to-act' : ''}`, 'data-seat': p.seat },
    el('div', { class: 'seat-name' }, me ? `Your mountain — ${seatName(game, p.seat)}` : seatName(game, p.seat),
      el('span', { class: 'score', text: `${p.height} floor${p.height === 1 ? '' : 's'} · hand ${p.hand_size}` }),
      p.two_turns ? el('span', { class: 'tag', text: 'two turns' }) : null,
      p.passed ? el('span', { class: 'tag', text: 'passed' }) : null,
      p.retired ? el('span', { class: 'tag', text: 'retired' }) : null),
    p.mountain.length || spots.length ? el('div', { class: 'mountain-scroll' }, area) : el('p', { class: 'none', text: 'not started' }));
}
