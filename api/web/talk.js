// What is said at a game (text as text): the thread, a box, Delete on one's own, Mute and
// Report on others', the unread count (kept in this browser). Watchers speak in their room.
import { api, get, post, seg } from './api.js';
import { h, mount, say, sayError, seatName } from './dom.js';

const link = (label, name, onclick) => h('button', { class: 'link', 'aria-label': name, onclick }, label);

function line(game, ev, acts, now) {
  const d = ev.data;
  return h('li', { class: [d.room === 'spectators' && 'room', now && 'now'], 'data-testid': 'said' },
    h('b', {}, `${typeof d.seat !== 'number' ? 'A watcher' : seatName(game, d.seat)}: `),
    d.hidden ? h('i', {}, 'deleted') : h('span', {}, d.text),
    acts && !d.hidden ? acts(d) : null);
}

const box = (list, count, form) => h('section', { class: 'card talk', 'aria-label': 'Messages' }, h('h2', { class: 'small' }, 'Messages ', count), list, form);
const none = () => h('li', { class: 'muted' }, 'Nothing said yet.');

/** A replay's thread: what was said up to `version`, what was said at it marked. */
export function replayThread(game, all, version) {
  const messages = all.filter((ev) => 'text' in ev.data || ev.data.hidden);
  return box(h('ol', { class: 'thread', 'data-testid': 'thread' }, messages.length ? messages.map((ev) => line(game, ev, null, ev.version === version)) : none()));
}

/** The game page's; `update(game)` reads the events after those it has. */
export function talk(id, me) {
  const said = new Map();
  let game;
  let closed = false;
  let upto = 0;
  const key = `avalanche.read.${id}`;
  const seen = () => Number(localStorage.getItem(key) || 0);
  const count = h('span', { class: 'badge', 'data-testid': 'unread' });
  const jump = h('button', { class: 'secondary', hidden: true, 'data-testid': 'unread-jump', onclick: () => { read(); input.focus(); } });
  const list = h('ol', { class: 'thread', 'data-testid': 'thread', 'aria-live': 'polite' });
  const input = h('textarea', { rows: 2, maxlength: 1000, 'aria-label': 'Message', 'data-testid': 'message-input', onfocus: read });
  const form = h('form', { class: 'say', onsubmit: send }, input, h('button', { type: 'submit', class: 'secondary' }, 'Send'));
  const el = box(list, count, form);
  el.onclick = read;
  const act = (f, done) => async () => { try { await f(); say(done); } catch (e) { sayError(e); } };
  const acts = (d) => {
    const who = typeof d.seat === 'number' ? seatName(game, d.seat) : 'the watcher';
    return d.player === me ? link('Delete', 'Delete', act(() => api('DELETE', `/games/${seg(id)}/messages/${seg(d.message)}`), ''))
      : [link('Mute', `Mute ${who}`, act(async () => {
        await api('PUT', `/players/me/mutes/${seg(d.player)}`);
        said.clear(); upto = 0; await update(game);
      }, `${who} muted: you no longer see their messages.`)),
      link('Report', `Report this message of ${who}`, act(() => post(`/games/${seg(id)}/messages/${seg(d.message)}/report`, {}), 'Reported to the operator.'))];
  };
  const seated = () => game.your_seat != null;

  function read() {
    const last = Math.max(0, ...said.keys());
    if (last > seen()) localStorage.setItem(key, String(last));
    draw();
  }
  function draw() {
    const n = [...said.values()].filter((ev) => ev.version > seen() && ev.data.player !== me && !ev.data.hidden).length;
    count.textContent = `${n} unread`;
    jump.textContent = `${n} unread message${n > 1 ? 's' : ''}: read`;
    count.hidden = jump.hidden = !n;
    form.hidden = closed || !me || (!seated() && game.status !== 'active');
    input.placeholder = seated() ? 'Say something to the table' : 'Say something to the other watchers';
    mount(list, said.size ? [...said.values()].map((ev) => line(game, ev, me && acts)) : none());
    list.scrollTop = list.scrollHeight;
  }
  async function send(e) {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    try {
      await post(`/games/${seg(id)}/messages`, seated() ? { text } : { text, room: 'spectators' });
      input.value = '';
      say('');
    } catch (err) {
      closed = err.code === 'room_closed';
      sayError(err);
      draw();
    }
  }
  async function update(g, signal) {
    game = g;
    while (upto < g.version) {
      const page = await get(`/games/${seg(id)}/events?after=${upto}&limit=1000`, { signal });
      if (!page.events.length) break;
      upto = page.events.at(-1).version;
      for (const ev of page.events) {
        // The seated get the spectators' room without its text: not shown.
        if (ev.type === 'said' && ('text' in ev.data || ev.data.hidden)) said.set(ev.version, ev);
        const gone = ev.type === 'hidden' && [...said.values()].find((s) => s.data.message === ev.data.message);
        if (gone) { gone.data.hidden = true; delete gone.data.text; }
      }
    }
    draw();
  }
  return { el, jump, update };
}
