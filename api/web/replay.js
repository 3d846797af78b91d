// Replay: any version of a game from GET states/{version}, stepped with buttons, a slider and
// the arrow keys; an analysis fork from the version shown; the audit and the revealed seed of a
// finished game; the record (Avalanche Chess) or the log exported. Import: paste a record.

import { get, getAll, post, api, seg } from './api.js';
import { replayThread } from './talk.js';
import { h, mount, field, say, kindTitle, orSay } from './dom.js';
import { drawTable, outcomeText, eventWords } from './game.js';
import { kinds } from './lobby.js';

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name, class: 'visually-hidden' }, 'download');
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The replay's steps: where play began (after the deal), each move a seat made, and the end;
 * bookkeeping versions (created, seats taken, clocks, the seed revealed) take no step. */
function stepsOf(game, events, last) {
  const moves = events.filter((ev) => String(ev.type).startsWith('game.') && /^seat:/.test(ev.actor || ''));
  const steps = [];
  const firstMove = moves.length ? moves[0].version : last + 1;
  const start = Math.max(1, Math.min(firstMove - 1, last));
  steps.push({ version: start, label: 'Start' });
  // A step ends where its command's events end (the same seat, the same instant): the
  // position after the whole move, a version a fork may start from.
  let covered = 0;
  for (const ev of moves) {
    if (ev.version <= covered) continue;
    let end = ev.version;
    for (const next of events) {
      if (next.version === end + 1 && next.actor === ev.actor && next.recorded_at === ev.recorded_at) end = next.version;
    }
    covered = end;
    steps.push({ version: end, label: eventWords(game, ev) });
  }
  // An imported record that breaks: the game stops there, marked in the list.
  const broken = events.find((ev) => ev.type === 'record_broken');
  if (broken) steps.push({ version: broken.version, label: eventWords(game, broken), mark: 'record-break' });
  // The end (the result, the seed revealed) or where the game stands now.
  if (steps[steps.length - 1].version < last) steps.push({ version: last, label: game.status === 'finished' ? 'The end' : 'Now' });
  return steps;
}

export async function replayPage(main, [id, wanted], app) {
  if (!id) { app.go('#/'); return undefined; }
  let game;
  let events = [];
  try {
    [game, events] = await Promise.all([get(`/games/${seg(id)}`), getAll(`/games/${seg(id)}/events?limit=1000`, undefined, 'events')]);
  } catch (e) {
    mount(main, h('h1', {}, 'Game not found'), h('p', {}, e.detail || String(e)));
    return undefined;
  }
  app.title(`Replay · ${kindTitle(game.kind)} · Avalanche`);
  const last = game.version;
  const steps = stepsOf(game, events, last);
  // Versions run from 1 (the game created) to the game's version.
  let version = Math.min(Math.max(wanted !== undefined && Number.isFinite(Number(wanted)) ? Number(wanted) : last, 1), last);
  const memo = {};
  const slider = h('input', { type: 'range', min: 1, max: last, value: version, 'aria-label': 'Version', 'data-testid': 'slider' });
  const shown = h('output', { 'data-testid': 'version', 'aria-live': 'polite' });
  const eventLine = h('p', { class: 'muted event-line', 'data-testid': 'event-line' });
  const table = h('div', { class: 'table' });
  const button = (label, text, step) => h('button', { class: 'secondary', 'aria-label': label, 'data-step': step, onclick: () => go(step) }, text);
  const controls = h('div', { class: 'replay-controls', role: 'group', 'aria-label': 'Replay controls' },
    button('First move', '|\u25C0', 'first'), button('Previous move', '\u25C0', 'prev'),
    slider,
    button('Next move', '\u25B6', 'next'), button('Last move', '\u25B6|', 'last'), shown);
  // The move list: one button a step, the current one marked; Left/Right step through it.
  const stepButtons = steps.map((st, i) => h('li', st.mark ? { class: st.mark, 'data-testid': st.mark } : {},
    h('button', { class: 'step', 'data-version': st.version, onclick: () => { version = st.version; show(); } },
      i === 0 ? st.label : `${i}. ${st.label}`)));
  const moveList = h('ol', { class: 'replay-moves', 'data-testid': 'replay-moves', 'aria-label': 'Moves' }, stepButtons);
  const tools = h('div', { class: 'card replay-tools' });
  const said = h('div');
  mount(main, h('article', { class: 'game replay' },
    h('div', { class: 'game-head' }, h('h1', {}, `Replay: ${kindTitle(game.kind)}`),
      h('p', {}, h('a', { href: `#/game/${seg(id)}` }, 'Back to the game'), game.status === 'finished' ? ` · ${outcomeText(game)}` : '')),
    controls, eventLine, h('div', { class: 'replay-body' }, table, h('div', {}, h('nav', { class: 'card replay-list', 'aria-label': 'Moves of the game' }, h('h2', { class: 'small' }, 'Moves'), moveList), said)), tools));

  /** The step shown: the last step at or before the version. */
  const stepAt = (v) => {
    let at = 0;
    steps.forEach((st, i) => { if (st.version <= v) at = i; });
    return at;
  };
  let drawing = 0;
  const show = orSay(async () => {
    const mine = ++drawing;
    const at = await get(`/games/${seg(id)}/states/${version}`);
    // Superseded by a newer step, or the person left the replay meanwhile.
    if (mine !== drawing || !main.isConnected) return;
    slider.value = String(version);
    shown.textContent = `version ${version} of ${last}`;
    const ev = events.find((e) => e.version === version);
    eventLine.textContent = ev ? eventWords(game, ev) : '';
    const current = stepAt(version);
    stepButtons.forEach((li, i) => {
      const b = li.firstChild;
      if (i === current) b.setAttribute('aria-current', 'step'); else b.removeAttribute('aria-current');
    });
    stepButtons[current]?.firstChild.scrollIntoView({ block: 'nearest' });
    mount(said, replayThread(game, at.messages || [], version));
    for (const k of Object.keys(memo)) delete memo[k];
    const root = h('div', { class: 'table-root' });
    table.replaceChildren(root);
    await drawTable(root, game.kind, { game, view: at.view, legal: [], seat: game.your_seat ?? null, play: async () => {}, readOnly: true, memo });
    if (mine !== drawing || !main.isConnected) return;
    main.dataset.version = String(version);
    main.dataset.step = String(current);
    app.replaceHash(`#/replay/${seg(id)}`, `#/replay/${seg(id)}/${version}`);
  });
  function go(step) {
    const current = stepAt(version);
    const target = { first: 0, prev: version > steps[current].version ? current : current - 1, next: current + 1, last: steps.length - 1 }[step];
    version = steps[Math.min(Math.max(target, 0), steps.length - 1)].version;
    show();
  }
  slider.addEventListener('input', () => { version = Number(slider.value); show(); });
  function onKey(event) {
    if (event.target instanceof HTMLElement && ['INPUT', 'TEXTAREA', 'SELECT'].includes(event.target.tagName) && event.target !== slider) return;
    if (event.target === slider) return; // the slider moves itself with the arrows, version by version
    const step = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last' }[event.key];
    if (step) { event.preventDefault(); go(step); }
  }
  document.addEventListener('keydown', onKey);

  // Tools: fork, export, audit and seed.
  const toolItems = [];
  if (app.me) {
    toolItems.push(h('button', {
      'data-testid': 'fork',
      onclick: orSay(async () => {
        const fork = await post(`/games/${seg(id)}/forks`, { version });
        say('Analysis fork created: you hold every seat.');
        app.go(`#/game/${seg(fork.id)}`);
      }),
    }, 'Fork from this version'));
  }
  const hidden = await kinds().then((ks) => (ks.find((k) => k.id === game.kind) || {}).hidden_information).catch(() => true);
  const open = game.status === 'finished' || !hidden;
  if (game.kind === 'avalanche-chess') {
    toolItems.push(h('button', {
      class: 'secondary', 'data-testid': 'export',
      onclick: orSay(async () => { download(`${id}.txt`, await api('GET', `/games/${seg(id)}/record`, undefined, { text: true }), 'text/plain'); }),
    }, 'Export the record'));
  }
  if (open) {
    toolItems.push(h('button', {
      class: 'secondary',
      onclick: orSay(async () => { download(`${id}.json`, JSON.stringify(await get(`/games/${seg(id)}/log`), null, 2), 'application/json'); }),
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

const EXAMPLE = '[White "Ana"]\n[Black "Ben"]\n1. Nf3// Nf6/a3\n2. Nc3/c6 Resigns\n1-0\n';

export async function importPage(main, _params, app) {
  app.title('Import · Avalanche');
  if (!app.me) {
    mount(main, h('h1', {}, 'Import a record'), h('p', {}, h('a', { href: '#/account' }, 'Sign in'), ' to import a record.'));
    return;
  }
  const variants = ((await kinds().catch(() => [])).find((k) => k.id === 'avalanche-chess') || { variants: ['standard'] }).variants;
  // By default the server reads the variant from the record (its tag, or its first moves).
  const variant = h('select', { name: 'variant' }, h('option', { value: '' }, 'Read from the record'), variants.map((v) => h('option', { value: v }, v)));
  const record = h('textarea', { name: 'record', rows: 10, required: true, spellcheck: 'false', placeholder: EXAMPLE });
  const problem = h('div', { class: 'import-problem', 'data-testid': 'import-problem', 'aria-live': 'polite' });
  mount(main, h('h1', {}, 'Import an Avalanche Chess record'),
    h('form', {
      class: 'card',
      onsubmit: async (event) => {
        event.preventDefault();
        await send(false);
      },
    },
    h('p', {}, 'Paste a record as players keep them (tag pairs, move numbers, "e4,c6" or "e4/c6", results). It is checked move by move and audited before it is stored.'),
    field('Variant', variant),
    field('Record', record),
    h('div', { class: 'row' },
      h('button', { type: 'submit' }, 'Import'),
      h('button', { class: 'secondary', 'data-testid': 'example', onclick: () => { record.value = EXAMPLE; record.focus(); } }, 'Fill in the example')),
    problem));

  /** Sends the record; `upToError`: a record broken at a half-turn is imported up to it. */
  async function send(upToError) {
    problem.replaceChildren();
    const body = { format: 'record', record: record.value };
    if (variant.value) body.variant = variant.value;
    if (upToError) body.up_to_error = true;
    try {
      const game = await post('/imports', body);
      say('Imported and audited.');
      app.go(`#/replay/${seg(game.id)}`);
    } catch (e) {
      const d = e.details || {};
      const broken = e.code === 'illegal_record' && d.half_turn;
      // A break is shown whole beside the form: the status line only points to it, rather than
      // repeat it over the form on a narrow screen.
      say(broken ? `The record breaks at half-turn ${d.half_turn}: see why under the form.` : e.detail || String(e), 'error');
      if (broken) {
        // The broken half-turn, its number beside its text and the reason.
        problem.append(h('dl', { class: 'record-break', 'data-testid': 'record-break' },
          h('dt', {}, `Half-turn ${d.half_turn}`),
          h('dd', {}, h('code', {}, d.text), ' — ', d.reason),
          h('dt', {}, 'Position before it'),
          h('dd', {}, h('code', { class: 'fen' }, d.fen))));
        if (d.half_turn > 1 && !upToError) {
          problem.append(h('p', {}, `The moves before it can be imported: the game then ends after half-turn ${d.half_turn - 1}, marked as broken there, so anyone can see where and why.`),
            h('button', { class: 'secondary', 'data-testid': 'import-up-to', onclick: () => send(true) }, `Import up to half-turn ${d.half_turn - 1}`));
        }
      }
      if (e.code === 'wrong_variant' && d.reads_as) {
        problem.append(h('button', { class: 'secondary', onclick: () => { variant.value = d.reads_as; } }, `Read it as ${d.reads_as}`));
      }
    }
  }
}
