// Building the page from data without ever parsing data as HTML: every text goes through
// textContent (or a text node) and every attribute through setAttribute.

const SVG = 'http://www.w3.org/2000/svg';

function build(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value == null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'class' && Array.isArray(value)) {
      el.setAttribute('class', value.filter(Boolean).join(' '));
    } else if (key === 'dataset') {
      for (const [k, v] of Object.entries(value)) el.dataset[k] = v;
    } else if (key === 'value' && 'value' in el) {
      el.value = value;
    } else if (key === 'checked' || key === 'selected') {
      el[key] = Boolean(value);
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child == null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** h('button', {class: 'x', onclick: f, 'aria-label': 'Go'}, 'text', child, [more]); a button
 * is type=button unless its attrs say `type: 'submit'`. */
export function h(tag, attrs, ...children) {
  const el = build(document.createElement(tag), attrs, children);
  if (tag === 'button' && !attrs?.type) el.type = 'button';
  return el;
}

/** The same for SVG elements. */
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG, tag), attrs, children);
}

/** Replaces an element's children. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** The shared status line: what went wrong (or right) in words. */
export function say(text, kind = 'info') {
  const el = document.getElementById('status');
  if (!el) return;
  el.textContent = text || '';
  el.dataset.kind = kind;
}

export function sayError(error) {
  say(error && error.detail ? error.detail : String(error && error.message ? error.message : error), 'error');
}

/** An async handler whose failure is said on the status line. */
export const orSay = (fn) => (...args) => fn(...args).catch(sayError);

/** A form's submit handler: the page stays, and a failure is said. */
export const submitted = (fn) => (event) => { event.preventDefault(); return orSay(fn)(event); };

/** "in 2 d 3 h", "in 25 s", "3 min ago" for a deadline. */
export function relative(iso, now = Date.now()) {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const units = [['d', 86400000], ['h', 3600000], ['min', 60000], ['s', 1000]];
  const parts = [];
  let rest = abs;
  for (const [name, size] of units) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
  }
  const text = parts.length ? parts.join(' ') : '0 s';
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

/** A deadline as an absolute local time with its relative form. */
export function deadline(iso) {
  const when = new Date(iso);
  return h('time', { datetime: iso, title: when.toLocaleString() }, `${when.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' })} (${relative(iso)})`);
}

export function seatName(game, seat) {
  const info = (game.seats || []).find((s) => s.seat === seat);
  return (info && info.player_name) || `seat ${seat + 1}`;
}

/** A server's sentence with "seat 1" put as the player's name ("Ben resigned"). */
export function withNames(game, text) {
  return String(text || '').replace(/\bseat (\d+)\b/g, (_, n) => seatName(game, Number(n)));
}

/** A labelled form field. */
export function field(label, control, hint) {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('small', {}, hint) : null);
}

export function kindTitle(kind) {
  return String(kind).split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}
