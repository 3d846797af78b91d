// Boot and hash router: #/ (lobby), #/game/<id>, #/replay/<id>[/<version>], #/import, #/account,
// #/player/<id>, #/tournaments, #/tournament/<id>.
// Each page is a function (main, params, app) that may return a cleanup function, called when
// the player leaves it (long-polls stopped, key handlers removed).

import { get, getAll, token } from './api.js';
import { h, mount, say } from './dom.js';
import { accountPage } from './account.js';
import { lobbyPage } from './lobby.js';
import { gamePage } from './game.js';
import { replayPage, importPage } from './replay.js';
import { playerPage } from './club.js';
import { tournamentsPage, tournamentPage } from './tournament.js';

let main = document.getElementById('main');
const nav = document.getElementById('nav');

/** A notification that it is my turn, when the person allowed them; one at a time (a newer
 * one replaces it by its tag). */
function notify(count) {
  if (!('Notification' in window) || Notification.permission !== 'granted') return;
  try {
    const n = new Notification('Avalanche: your turn', {
      body: count === 1 ? 'A game waits for your move.' : `${count} games wait for your move.`,
      tag: 'avalanche-your-turn',
      icon: '/favicon.svg',
    });
    n.onclick = () => { window.focus(); n.close(); };
  } catch { /* some browsers only notify from a service worker */ }
}

const app = {
  me: null,
  myTurns: 0,
  pageTitle: 'Avalanche',
  /** Sets the page's own title; "(your turn)" leads while a game waits for me. */
  title(text) {
    app.pageTitle = text;
    app.drawTitle();
  },
  drawTitle() {
    const prefix = app.myTurns > 0 ? `(${app.myTurns}) Your turn · ` : '';
    document.title = `${prefix}${app.pageTitle}`;
  },
  /** The number of games waiting for my move: the title says it on every page, and when it
   * grows while the tab is out of sight, a browser notification (once the person allowed it). */
  setTurns(count) {
    const grew = count > app.myTurns;
    app.myTurns = count;
    app.drawTitle();
    if (grew && document.hidden) notify(count);
  },
  /** Counts the games waiting for me. */
  async refreshTurns() {
    if (!token.get()) {
      app.setTurns(0);
      return;
    }
    try {
      const mine = await getAll('/players/me/games?turn=mine&limit=200');
      app.setTurns(mine.filter((g) => !g.superseded).length);
    } catch { /* the banner says when the server cannot be reached */ }
  },
  go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
  /** Puts `hash` in the address bar in place of the page's own address (`own`, or an address
   * under it), only while the address is still the page's: a page that finishes drawing just
   * after the person went on (a link followed, whose `hashchange` has not yet been handled)
   * must not put its address back, or the page they left would be drawn again. */
  replaceHash(own, hash) {
    const now = location.hash;
    if (now !== own && !now.startsWith(`${own}/`)) return;
    if (now !== hash) history.replaceState(null, '', hash);
  },
  async signedIn() {
    if (!token.get()) {
      app.me = null;
      return null;
    }
    if (app.me) return app.me;
    try {
      app.me = await get('/players/me');
    } catch (e) {
      if (e.status === 401) token.clear();
      app.me = null;
    }
    return app.me;
  },
  drawNav() {
    const links = [
      h('a', { href: '#/' }, 'Lobby'),
      h('a', { href: '#/import' }, 'Import'),
      h('a', { href: '#/tournaments' }, 'Tournaments'),
      app.me ? h('a', { href: `#/player/${encodeURIComponent(app.me.id)}` }, 'My page') : null,
      h('a', { href: '#/account' }, app.me ? app.me.name : 'Sign in'),
    ].filter(Boolean);
    // Offered until the person answers the browser's question.
    if (app.me && 'Notification' in window && Notification.permission === 'default') {
      links.push(h('button', {
        class: 'link', 'data-testid': 'allow-notifications',
        onclick: async () => {
          try { await Notification.requestPermission(); } catch { /* answered or not offered */ }
          app.drawNav();
        },
      }, 'Tell me when it is my turn'));
    }
    mount(nav, ...links);
  },
};

let cleanup = null;
let generation = 0;

async function route() {
  const hash = location.hash || '#/';
  if (hash === '#main') return; // the skip link
  if (cleanup) {
    try { cleanup(); } catch { /* a page's own business */ }
    cleanup = null;
  }
  const mine = ++generation;
  say('');
  await app.signedIn();
  if (mine !== generation) return;
  app.drawNav();
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  // Each page draws into a <main> of its own: a page still loading when the person went on
  // (a slow replay, then Import) draws into its detached element, never over the next page.
  const fresh = main.cloneNode(false);
  for (const key of Object.keys(fresh.dataset)) delete fresh.dataset[key];
  main.replaceWith(fresh);
  main = fresh;
  mount(main, h('p', {}, 'Loading…'));
  let page;
  let params = [];
  switch (parts[0]) {
    case undefined: case 'lobby': page = lobbyPage; break;
    case 'game': page = gamePage; params = [parts[1]]; break;
    case 'replay': page = replayPage; params = [parts[1], parts[2]]; break;
    case 'import': page = importPage; break;
    case 'account': page = accountPage; break;
    case 'player': page = playerPage; params = [parts[1]]; break;
    case 'tournaments': page = tournamentsPage; break;
    case 'tournament': page = tournamentPage; params = [parts[1]]; break;
    default:
      app.title('Not found');
      mount(main, h('h1', {}, 'Nothing here'), h('p', {}, h('a', { href: '#/' }, 'Back to the lobby')));
      return;
  }
  const done = await page(main, params, app);
  if (mine !== generation) {
    if (typeof done === 'function') done();
    return;
  }
  cleanup = typeof done === 'function' ? done : null;
  app.refreshTurns();
}

window.addEventListener('hashchange', route);
// A slow heartbeat for the title's "your turn" (and the notification) on any page, in a
// background tab too.
setInterval(() => { app.refreshTurns(); }, 30000);
route();
