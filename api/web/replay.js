// Replay: any version of a game from GET states/{version}, stepped with buttons, a slider and
// the arrow keys; an analysis fork from the version shown; the audit and the revealed seed of a
// finished game; the record (Avalanche Chess) or the log exported. Import: paste a record.

import { get, post, api, seg } from './api.js';
import { h, mount, field, say, sayError, kindTitle, seatName } from './dom.js';
import { drawTable, outcomeText } from './game.js';

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name, class: 'visually-hidden' }, 'download');
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export async function replayPage(main, [id, wanted], app) {
  if (!id) { app.go('#/'); return undefined; }
  let game;
  try {
    game = await get(`/games/${seg(id)}`);
  } catch (e) {
    mount(main, h('h1', {}, 'Game not found'), h('p', {}, e.detail || String(e)));
    return undefined;
  }
  app.title(`Replay · ${kindTitle(game.kind)} · Avalanche`);
  const last = game.version;
  // Versions run from 1 (the game created) to the game's version.
  let version = Math.min(Math.max(wanted !== undefined && Number.isFinite(Number(wanted)) ? Number(wanted) : last, 1), last);
  const memo = {};
  const slider = h('input', { type: 'range', min: 1, max: last, value: version, 'aria-label': 'Version', 'data-testid': 'slider' });
  const shown = h('output', { 'data-testid': 'version', 'aria-live': 'polite' });
  const eventLine = h('p', { class: 'muted event-line' });
  const table = h('div', { class: 'table' });
  const button = (label, text, step) => h('button', { type: 'button', class: 'secondary', 'aria-label': label, 'data-step': step, onclick: () => go(step) }, text);
  const controls = h('div', { class: 'replay-controls', role: 'group', 'aria-label': 'Replay controls' },
    button('First version', '|\u25C0', 'first'), button('Previous version', '\u25C0', 'prev'),
    slider,
    button('Next version', '\u25B6', 'next'), button('Last version', '\u25B6|', 'last'), shown);
  const tools = h('div', { class: 'card replay-tools' });
  mount(main, h('article', { class: 'game replay' },
    h('div', { class: 'game-head' }, h('h1', {}, `Replay: ${kindTitle(game.kind)}`),
      h('p', {}, h('a', { href: `#/game/${seg(id)}` }, 'Back to the game'), game.status === 'finished' ? ` · ${outcomeText(game)}` : '')),
    controls, eventLine, table, tools));

  const actorName = (actor) => {
    const seat = /^seat:(\d+)$/.exec(actor || '');
    if (seat) return seatName(game, Number(seat[1]));
    return actor === 'system' ? 'the server' : 'a player';
  };
  let drawing = 0;
  async function show() {
    const mine = ++drawing;
    try {
      const [at, events] = await Promise.all([
        get(`/games/${seg(id)}/states/${version}`),
        get(`/games/${seg(id)}/events?after=${version - 1}&limit=1`),
      ]);
      if (mine !== drawing) return;
      slider.value = String(version);
      shown.textContent = `version ${version} of ${last}`;
      const ev = events.events[0];
      eventLine.textContent = ev ? `${ev.type.replaceAll('_', ' ')}, by ${actorName(ev.actor)}` : '';
      for (const k of Object.keys(memo)) delete memo[k];
      const root = h('div', { class: 'table-root' });
      table.replaceChildren(root);
      await drawTable(root, game.kind, { game, view: at.view, legal: [], seat: game.your_seat ?? null, play: async () => {}, readOnly: true, memo });
      main.dataset.version = String(version);
      if (location.hash !== `#/replay/${seg(id)}/${version}`) history.replaceState(null, '', `#/replay/${seg(id)}/${version}`);
    } catch (e) { sayError(e); }
  }
  function go(step) {
    const next = { first: 1, prev: version - 1, next: version + 1, last }[step];
    version = Math.min(Math.max(next, 1), last);
    show();
  }
  slider.addEventListener('input', () => { version = Number(slider.value); show(); });
  function onKey(event) {
    if (event.target instanceof HTMLElement && ['INPUT', 'TEXTAREA', 'SELECT'].includes(event.target.tagName) && event.target !== slider) return;
    if (event.target === slider) return; // the slider moves itself with the arrows
    const step = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last' }[event.key];
    if (step) { event.preventDefault(); go(step); }
  }
  document.addEventListener('keydown', onKey);

  // Tools: fork, export, audit and seed.
  const toolItems = [];
  if (app.me) {
    toolItems.push(h('button', {
      type: 'button', 'data-testid': 'fork',
      onclick: async () => {
        try {
          const fork = await post(`/games/${seg(id)}/forks`, { version });
          say('Analysis fork created: you hold every seat.');
          app.go(`#/game/${seg(fork.id)}`);
        } catch (e) { sayError(e); }
      },
    }, 'Fork from this version'));
  }
  const hidden = await get('/kinds').then((ks) => (ks.find((k) => k.id === game.kind) || {}).hidden_information).catch(() => true);
  const open = game.status === 'finished' || !hidden;
  if (game.kind === 'avalanche-chess') {
    toolItems.push(h('button', {
      type: 'button', class: 'secondary', 'data-testid': 'export',
      onclick: async () => {
        try { download(`${id}.txt`, await api('GET', `/games/${seg(id)}/record`, undefined, { text: true }), 'text/plain'); } catch (e) { sayError(e); }
      },
    }, 'Export the record'));
  }
  if (open) {
    toolItems.push(h('button', {
      type: 'button', class: 'secondary',
      onclick: async () => {
        try { download(`${id}.json`, JSON.stringify(await get(`/games/${seg(id)}/log`), null, 2), 'application/json'); } catch (e) { sayError(e); }
      },
    }, 'Export the log'));
  }
  mount(tools, h('h2', {}, 'This game'), h('div', { class: 'row' }, toolItems));
  if (game.seed) tools.append(h('p', {}, 'Revealed seed: ', h('code', { class: 'seed', 'data-testid': 'seed' }, game.seed)));
  tools.append(h('p', {}, 'Commitment (SHA-256 of the seed): ', h('code', { class: 'seed' }, game.commitment)));
  if (game.status === 'finished') {
    const auditLine = h('p', { 'data-testid': 'audit' }, 'Auditing…');
    tools.append(auditLine);
    get(`/games/${seg(id)}/audit`).then((a) => {
      const ok = a.valid === true;
      const r = a.report || {};
      const d = a.divergence || {};
      auditLine.textContent = ok
        ? `Audit: valid. ${r.commands} commands decided again give the ${r.events} stored events${r.seed_verified ? '; the revealed seed matches its commitment' : ''}.`
        : `Audit: the log diverges at version ${d.version}: ${d.reason}`;
      auditLine.dataset.valid = String(ok);
    }).catch((e) => { auditLine.textContent = `Audit: ${e.detail}`; });
  }
  await show();
  return () => document.removeEventListener('keydown', onKey);
}

export async function importPage(main, _params, app) {
  app.title('Import · Avalanche');
  if (!app.me) {
    mount(main, h('h1', {}, 'Import a record'), h('p', {}, h('a', { href: '#/account' }, 'Sign in'), ' to import a record.'));
    return;
  }
  const variants = ((await get('/kinds').catch(() => [])).find((k) => k.id === 'avalanche-chess') || { variants: ['standard'] }).variants;
  const variant = h('select', { name: 'variant' }, variants.map((v) => h('option', { value: v }, v)));
  const record = h('textarea', { name: 'record', rows: 10, required: true, spellcheck: 'false', placeholder: '1. Nf3// Nf6/a3\n2. Nc3/c6 d5/h3' });
  mount(main, h('h1', {}, 'Import an Avalanche Chess record'),
    h('form', {
      class: 'card',
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          const game = await post('/imports', { format: 'record', variant: variant.value, record: record.value });
          say('Imported and audited.');
          app.go(`#/replay/${seg(game.id)}`);
        } catch (e) {
          const where = e.detail || '';
          say(where, 'error');
        }
      },
    },
    h('p', {}, 'Paste a record as players keep them (tag pairs, move numbers, "e4,c6" or "e4/c6", results). It is checked move by move and audited before it is stored.'),
    field('Variant', variant),
    field('Record', record),
    h('button', { type: 'submit' }, 'Import')));
}
