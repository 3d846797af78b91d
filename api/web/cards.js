// Playing cards for the card tables (Avalanche, Ski Runs, Vamanos, Altitude), drawn by our own
// code as the rules name them, plus the small pieces every card table shares. Only textContent
// and setAttribute are used: nothing from the server is ever parsed as HTML.

import { get, seg } from './api.js';
import { h, s as svgNode, seatName, withNames } from './dom.js';

// h and s of dom.js, with two conveniences for the tables: `text` (the element's text) and
// `on: {event: handler}`.
function adapt(build) {
  return (tag, attrs = {}, ...children) => {
    const { text, on, ...rest } = attrs || {};
    const node = build(tag, rest, text == null ? null : String(text), ...children);
    for (const [event, handler] of Object.entries(on || {})) node.addEventListener(event, handler);
    return node;
  };
}
export const el = adapt(h);
export const svg = adapt(svgNode);

// attrs for a card: its own classes first, then any the caller adds (sizes: small, tiny).
function cardAttrs(base, attrs) {
  const extra = attrs.class ? ` ${attrs.class}` : '';
  return { ...attrs, class: base + extra };
}

// What is printed on a card face (ranks, points, values) is drawn by the stylesheet from
// `data-print`: the face is a picture named by its aria-label, and a button holding it is named
// by its words ("Return Marmot 7", "1 × 4"), so that the text a reader sees of the button is
// the card's printed words only, a part of that name (the words stay text: "Green run").
export function printed(cls, text) {
  return el('span', { class: cls, 'data-print': String(text) });
}

// A real <button> with an accessible name.
export function button(label, onClick, attrs = {}) {
  return el('button', { ...attrs, on: { click: onClick } }, label);
}

// The name of a seat: the player's name from the game summary.
export { seatName };

// Sends a legal entry's command exactly as it came, after a short "busy" mark on the table so
// that a double click does not send it twice.
export function send(ctx, root, command, options) {
  if (root.dataset.busy === '1') return Promise.resolve();
  root.dataset.busy = '1';
  root.classList.add('busy');
  return Promise.resolve(ctx.play(command, options)).finally(() => {
    root.dataset.busy = '';
    root.classList.remove('busy');
  });
}

// Every legal entry as a button, folded away: the keyboard-only way to any move, and proof
// that the table offers exactly the legal list. A list: empty without a legal entry.
export function allMoves(ctx, root) {
  if (!ctx.legal.length) return [];
  return [el('details', { class: 'all-moves' },
    el('summary', { text: `All legal moves (${ctx.legal.length})` }),
    el('div', { class: 'move-list' },
      ctx.legal.map((entry) => button(entry.notation, () => send(ctx, root, entry.command), {
        class: 'move', 'data-notation': entry.notation,
      }))))];
}

// A face-down card with a count on it (a pile, a hand seen from outside).
export function pile(label, count, attrs = {}) {
  return el('div', { class: 'pile', role: 'img', 'aria-label': `${label}: ${count}`, ...attrs },
    el('div', { class: count ? 'pc back' : 'pc empty' }, printed('count', count)),
    el('div', { class: 'pile-label', text: label }));
}

// ---------------------------------------------------------------------------------------------
// Avalanche: two French decks and 6 Jokers; suits do not matter, so a card is its rank.
const FACE_NAMES = { J: 'Jack', Q: 'Queen', K: 'King', A: 'Ace', Joker: 'Joker' };
export const AVALANCHE_RANKS = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A', 'Joker'];

export function rankName(rank) {
  return FACE_NAMES[rank] || rank;
}

export function avalancheCard(rank, attrs = {}) {
  const joker = rank === 'Joker';
  const corner = joker ? '★' : rank;
  const centre = joker
    ? svg('svg', { viewBox: '0 0 40 40', class: 'pic', 'aria-hidden': 'true' },
      svg('path', { d: 'M20 3l5 12 13 1-10 8 3 13-11-7-11 7 3-13-10-8 13-1z', class: 'joker-star' }))
    : printed('big', rank);
  return el('div', cardAttrs(`pc fr rank-${joker ? 'joker' : rank.toLowerCase()}${FACE_NAMES[rank] ? ' court' : ''}`, {
    role: 'img', 'aria-label': rankName(rank), 'data-rank': rank, ...attrs,
  }),
  printed('corner tl', corner),
  centre,
  printed('corner br', corner));
}

// ---------------------------------------------------------------------------------------------
// Ski Runs: lift cards, runs of four colours (their points printed on them), avalanche cards.
export const SKI_POINTS = { green_run: 1, blue_run: 2, red_run: 3, black_run: 4 };
const SKI_NAMES = {
  lift: 'Lift', green_run: 'Green run', blue_run: 'Blue run', red_run: 'Red run',
  black_run: 'Black run', avalanche: 'Avalanche',
};
export function skiName(card) {
  return SKI_NAMES[card] || card;
}

function skiSymbol(card) {
  switch (card) {
    case 'green_run': return svg('circle', { cx: 20, cy: 20, r: 12 });
    case 'blue_run': return svg('rect', { x: 8, y: 8, width: 24, height: 24 });
    case 'red_run': return svg('path', { d: 'M20 5l15 15-15 15-15-15z' });
    case 'black_run': return [svg('path', { d: 'M11 8l9 12-9 12-9-12z' }), svg('path', { d: 'M29 8l9 12-9 12-9-12z' })];
    case 'lift': return [
      svg('path', { d: 'M2 10L38 4', class: 'cable' }),
      svg('path', { d: 'M20 7v9', class: 'cable' }),
      svg('rect', { x: 11, y: 16, width: 18, height: 14, rx: 3 }),
      svg('rect', { x: 14, y: 19, width: 12, height: 5, class: 'window' }),
    ];
    case 'avalanche': return [
      svg('path', { d: 'M3 34L20 6l17 28z', class: 'warn' }),
      svg('circle', { cx: 14, cy: 28, r: 3, class: 'snow' }),
      svg('circle', { cx: 21, cy: 25, r: 3.5, class: 'snow' }),
      svg('circle', { cx: 27, cy: 29, r: 2.5, class: 'snow' }),
    ];
    default: return [];
  }
}

export function skiCard(card, attrs = {}) {
  const points = SKI_POINTS[card];
  return el('div', cardAttrs(`pc ski ski-${card}`, { role: 'img', 'aria-label': skiName(card) + (points ? `, ${points} points` : ''), 'data-card': card, ...attrs }),
    points ? printed('corner tl', points) : null,
    svg('svg', { viewBox: '0 0 40 40', class: 'pic', 'aria-hidden': 'true' }, skiSymbol(card)),
    el('span', { class: 'name', text: skiName(card) }));
}

// ---------------------------------------------------------------------------------------------
// Vamanos: six pictures in six colours.
const PICTURE_NAMES = {
  hombre: 'Hombre', cactus: 'Cactus', jalapeno: 'Jalapeño', hacienda: 'Hacienda',
  sombrero: 'Sombrero', burro: 'Burro',
};
export function vamanosName(card) {
  return `${cap(card.colour)} ${PICTURE_NAMES[card.picture] || card.picture}`;
}
export function cap(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : '';
}

function picture(name) {
  switch (name) {
    case 'hombre': return [svg('circle', { cx: 20, cy: 11, r: 6 }), svg('path', { d: 'M9 36c0-10 4-16 11-16s11 6 11 16z' })];
    case 'cactus': return [
      svg('path', { d: 'M16 36V10a4 4 0 018 0v26z' }),
      svg('path', { d: 'M16 24h-5a3 3 0 01-3-3v-7a2 2 0 014 0v6h4z' }),
      svg('path', { d: 'M24 20h5v-8a2 2 0 014 0v9a3 3 0 01-3 3h-6z' }),
    ];
    case 'jalapeno': return [
      svg('path', { d: 'M12 12c10 0 20 6 20 16 0 6-4 8-6 6-2-8-8-14-16-16-3-1-2-6 2-6z' }),
      svg('path', { d: 'M12 12c-1-3 0-6 3-8', class: 'stem' }),
    ];
    case 'hacienda': return [svg('path', { d: 'M4 18L20 6l16 12z' }), svg('path', { d: 'M8 18h24v18H8z' }), svg('path', { d: 'M17 36v-9h6v9z', class: 'door' })];
    case 'sombrero': return [svg('ellipse', { cx: 20, cy: 28, rx: 17, ry: 5 }), svg('path', { d: 'M12 27c0-10 3-16 8-16s8 6 8 16z' })];
    case 'burro': return [
      svg('path', { d: 'M8 20h20v10H8z' }),
      svg('path', { d: 'M26 20l4-10h5l-2 10z' }),
      svg('path', { d: 'M30 10l-1-6 3 5', class: 'stem' }),
      svg('path', { d: 'M9 30v6h3v-6zM24 30v6h3v-6z' }),
    ];
    default: return [];
  }
}

export function vamanosCard(card, attrs = {}) {
  if (!card) return el('div', cardAttrs('pc back', { role: 'img', 'aria-label': 'a face-down card', ...attrs }));
  return el('div', cardAttrs(`pc vam col-${card.colour}`, { role: 'img', 'aria-label': vamanosName(card), 'data-picture': card.picture, 'data-colour': card.colour, ...attrs }),
    svg('svg', { viewBox: '0 0 40 40', class: 'pic', 'aria-hidden': 'true' }, picture(card.picture)),
    printed('name', PICTURE_NAMES[card.picture] || card.picture));
}

// ---------------------------------------------------------------------------------------------
// Altitude: mountains numbered 1 to 24, animals, cable cars, avalanches and Saint-Bernards.
export function altitudeName(card) {
  const f = card.face;
  switch (f.kind) {
    case 'mountain': return `Mountain ${f.value}`;
    case 'animal': return `${cap(f.animal)} ${f.value}`;
    case 'cable_car': return 'Cable car';
    case 'avalanche': return 'Avalanche';
    case 'saint_bernard': return 'Saint-Bernard';
    default: return f.kind;
  }
}

function altitudePicture(face) {
  switch (face.kind) {
    case 'mountain': return [svg('path', { d: 'M2 36L15 12l6 9 6-7 11 22z' }), svg('path', { d: 'M15 12l-4 8 4-2 3 3z', class: 'snow' })];
    case 'animal': return [svg('path', { d: 'M2 36L15 18l6 7 6-5 11 16z', class: 'hill' }), svg('circle', { cx: 20, cy: 13, r: 7, class: `animal a-${face.animal}` })];
    case 'cable_car': return [svg('path', { d: 'M2 9L38 3', class: 'cable' }), svg('path', { d: 'M20 6v8', class: 'cable' }), svg('rect', { x: 10, y: 14, width: 20, height: 16, rx: 3 }), svg('rect', { x: 13, y: 17, width: 14, height: 6, class: 'window' })];
    case 'avalanche': return skiSymbol('avalanche');
    case 'saint_bernard': return [svg('path', { d: 'M8 30c0-8 5-13 12-13s12 5 12 13z' }), svg('circle', { cx: 28, cy: 14, r: 6 }), svg('rect', { x: 14, y: 22, width: 8, height: 6, class: 'keg' })];
    default: return [];
  }
}

export function altitudeCard(card, attrs = {}) {
  const f = card.face;
  const value = f.value !== undefined ? f.value : f.kind === 'cable_car' ? 0 : null;
  return el('div', cardAttrs(`pc alt alt-${f.kind}${f.animal ? ` alt-${f.animal}` : ''}`, { role: 'img', 'aria-label': altitudeName(card), 'data-card-id': card.id, ...attrs }),
    value !== null ? printed('corner tl', value) : null,
    svg('svg', { viewBox: '0 0 40 40', class: 'pic', 'aria-hidden': 'true' }, altitudePicture(f)),
    f.kind === 'mountain' ? null : el('span', { class: 'name', text: altitudeName(card).replace(/ \d+$/, '') }),
    // The value again at the foot, which the floor above never covers.
    value !== null ? printed('corner foot', value) : null);
}

// ---------------------------------------------------------------------------------------------
// The end of a game: final scores with their breakdown (rows given by the table), the revealed
// seed and the audit result (fetched once per game version).
const audits = new Map();
export function endPanel(ctx, title, rows) {
  const game = ctx.game || {};
  const outcome = game.outcome;
  const panel = el('section', { class: 'end-panel', 'aria-label': 'Final result' },
    el('h3', { text: title }),
    game.superseded ? el('p', { class: 'outcome', text: 'Taken back: play goes on in the game that continues it.' })
      : outcome ? el('p', { class: 'outcome' },
        outcome.winners && outcome.winners.length
          ? `Won by ${outcome.winners.map((s) => seatName(game, s)).join(' and ')}`
          : outcome.draw ? 'Drawn' : 'No winner',
        outcome.reason ? ` — ${withNames(game, outcome.reason)}` : '') : null,
    rows.length ? el('table', { class: 'scores' },
      el('thead', {}, el('tr', {}, rows[0].map((c) => el('th', { scope: 'col', text: c })))),
      el('tbody', {}, rows.slice(1).map((r) => el('tr', {}, r.map((c, i) => el(i ? 'td' : 'th', i ? { text: c } : { scope: 'row', text: c })))))) : null,
    game.seed ? el('p', { class: 'seed' }, 'Seed: ', el('code', { text: game.seed })) : null);
  if (game.status && game.status !== 'finished' && !game.seed) return panel;
  const audit = el('p', { class: 'audit', 'aria-live': 'polite' }, 'Audit: ');
  panel.append(audit);
  const at = `${game.id}@${game.version}`;
  if (!audits.has(at)) {
    audits.set(at, get(`/games/${seg(game.id)}/audit`)
      .then((body) => ({ ok: true, body }))
      .catch((e) => ({ ok: false, body: { detail: e.detail || String(e) } })));
  }
  audits.get(at).then(({ ok, body }) => {
    if (!ok) {
      audit.append(el('strong', { class: 'audit-other', text: body.detail || body.title || 'not available' }));
      return;
    }
    audit.append(el('strong', { class: body.valid ? 'audit-valid' : 'audit-other', text: body.valid ? 'valid' : 'divergence found' }));
    const r = body.report;
    if (r) audit.append(` — ${r.commands} commands decided again, ${r.events} events matched${r.seed_verified ? ', seed matches its commitment' : ''}`);
    if (body.divergence) audit.append(` — at version ${body.divergence.version}: ${body.divergence.reason}`);
  });
  return panel;
}

