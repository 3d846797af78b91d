// Accounts: sign up (the key is shown once), sign in with a key on another device, sign out.

import { api, get, getAll, post, del, seg, token } from './api.js';
import { h, mount, field, say, sayError, orSay, submitted } from './dom.js';

const RETURN = 'avalanche.return';

export async function accountPage(main, _params, app) {
  app.title('Account · Avalanche');
  if (app.me) {
    mount(main,
      h('h1', {}, 'Your account'),
      h('p', {}, 'Signed in as ', h('strong', { 'data-testid': 'me' }, h('bdi', {}, app.me.name)), '.'),
      h('p', { class: 'muted' }, 'Your key stays in this browser. To play on another device, sign in there with the key you saved when you signed up.'),
      h('p', {}, h('button', {
        class: 'secondary', 'data-testid': 'sign-out',
        onclick: () => {
          token.clear();
          app.me = null;
          say('Signed out.');
          app.go('#/account');
        },
      }, 'Sign out')),
      tokensCard(app),
      await mailSection(main, app));
    return;
  }

  const name = h('input', { name: 'name', autocomplete: 'nickname', required: true, maxlength: 40 });
  const signUp = h('form', {
    class: 'card',
    'aria-labelledby': 'signup-title',
    onsubmit: submitted(async () => {
      const created = await post('/players', { name: name.value.trim() });
      token.set(created.token);
      app.me = created.player;
      showKey(main, created, app);
    }),
  },
  h('h2', { id: 'signup-title' }, 'New here? Sign up'),
  field('Your name', name, 'Shown to the other players.'),
  h('button', { type: 'submit' }, 'Sign up'));

  const key = h('input', { name: 'key', autocomplete: 'off', spellcheck: 'false', required: true });
  const signIn = h('form', {
    class: 'card',
    'aria-labelledby': 'signin-title',
    onsubmit: async (event) => {
      event.preventDefault();
      token.set(key.value.trim());
      app.me = null;
      try {
        app.me = await get('/players/me');
        say(`Signed in as ${app.me.name}.`);
        app.go(takeReturn());
      } catch (e) {
        token.clear();
        say(e.status === 401 ? 'This key is not known here; check it and try again.' : e.detail, 'error');
      }
    },
  },
  h('h2', { id: 'signin-title' }, 'Have a key? Sign in'),
  field('Your key', key, 'The key you were shown when you signed up.'),
  h('button', { type: 'submit' }, 'Sign in'));

  mount(main, h('h1', {}, 'Play Avalanche'),
    sessionStorage.getItem(RETURN) ? h('p', { class: 'notice', 'data-testid': 'invited' }, 'You were invited to a game: sign up with a name (or sign in with your key) and you come back to it, a seat ready to take.') : null,
    h('div', { class: 'columns' }, signUp, signIn));
  name.focus();
}

/** Where to go after signing up or in: the game whose invitation brought the person here. */
function takeReturn() {
  const back = sessionStorage.getItem(RETURN);
  sessionStorage.removeItem(RETURN);
  return back && /^#\/game\/[^/]+$/.test(back) ? back : '#/';
}

function showKey(main, created, app) {
  const back = sessionStorage.getItem(RETURN);
  const keyText = h('code', { class: 'key', 'data-testid': 'key' }, created.token);
  const copy = h('button', {
    class: 'secondary',
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(created.token);
        say('Key copied.');
      } catch {
        say('Select the key and copy it by hand.', 'error');
      }
    },
  }, 'Copy the key');
  mount(main,
    h('h1', {}, `Welcome, ${created.player.name}`),
    h('div', { class: 'card' },
      h('h2', {}, 'Your key, shown only this once'),
      h('p', {}, 'Keep it somewhere safe: it signs you in on another device, and nobody can show it to you again.'),
      keyText,
      h('div', { class: 'row' }, copy,
        h('button', { 'data-testid': 'key-saved', onclick: () => app.go(takeReturn()) }, back ? 'I saved it: back to the game' : 'I saved it: to the lobby'))));
  app.drawNav();
}

// The player's keys (tokens): when each was made and last used, its label; never the secret.
// Any other key can be revoked here, one by one or all at once.
function tokensCard(app) {
  const card = h('section', { class: 'card', 'aria-labelledby': 'tokens-title', 'data-testid': 'tokens' },
    h('h2', { id: 'tokens-title' }, 'Your keys'), h('p', { class: 'muted' }, 'Loading…'));
  drawTokens(card, app);
  return card;
}

function when(iso, otherwise) {
  return iso ? h('time', { datetime: iso }, new Date(iso).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' })) : otherwise;
}

async function drawTokens(card, app) {
  const tokens = await getAll('/players/me/tokens').catch(sayError);
  if (!tokens) return;
  const again = () => drawTokens(card, app);
  const rows = tokens.map((t) => h('li', { 'data-testid': 'token', 'data-token-id': t.id },
    h('div', { class: 'token-what' },
      h('span', {}, h('bdi', { class: 'token-label' }, t.label || 'Key without a label'),
        t.current ? h('span', { class: 'badge' }, 'this browser') : null),
      h('small', { class: 'muted' }, 'Made ', when(t.created_at, 'before keys were listed'), ' · last used ', when(t.last_used_at, 'not yet'))),
    t.current
      ? null
      : h('button', {
        class: 'secondary', 'data-testid': 'revoke-token',
        'aria-label': `Revoke ${t.label ? `the key ${t.label}` : 'this key without a label'}`,
        onclick: orSay(async () => {
          await del(`/players/me/tokens/${seg(t.id)}`);
          say('Key revoked: it no longer signs anyone in.');
          again();
        }),
      }, 'Revoke')));
  const others = tokens.filter((t) => !t.current).length;
  mount(card,
    h('h2', { id: 'tokens-title' }, 'Your keys'),
    h('p', { class: 'muted' }, 'Every key that signs you in, on any device. Revoke one you no longer use or did not make.'),
    h('ul', { class: 'tokens' }, rows),
    others === 0 ? h('p', { class: 'muted', 'data-testid': 'only-this-key' }, 'No other key signs you in: only this browser is signed in.') : null,
    others > 0 ? h('button', {
      class: 'secondary', 'data-testid': 'revoke-others',
      onclick: orSay(async () => {
        const done = await del('/players/me/tokens?keep=current');
        say(`Signed out everywhere else: ${done.revoked} key${done.revoked === 1 ? '' : 's'} revoked.`);
        again();
      }),
    }, 'Sign out everywhere else') : null);
}

// Play by email: the address (confirmed by a mailed code) and which notices are mailed.
async function mailSection(main, app) {
  const section = h('section', { class: 'card', 'aria-labelledby': 'mail-title', 'data-testid': 'mail' });
  let info;
  try {
    info = (await get('/players/me')).email;
  } catch (e) {
    sayError(e);
    return section;
  }
  const again = () => accountPage(main, null, app);
  const address = h('input', { type: 'email', name: 'email', autocomplete: 'email', required: true, value: info.address || '' });
  const setAddress = h('form', {
    onsubmit: submitted(async () => {
      await api('PUT', '/players/me/email', { address: address.value.trim() });
      say('A code is on its way to that address.');
      again();
    }),
  }, field('Mail address', address, 'Game mail goes here once it is confirmed; reply to a mail to play your move.'),
  h('button', { type: 'submit' }, info.address ? 'Change the address' : 'Set the address'));
  const children = [h('h2', { id: 'mail-title' }, 'Play by email'), setAddress];
  if (info.address && !info.confirmed) {
    const code = h('input', { name: 'code', autocomplete: 'one-time-code', inputmode: 'numeric', required: true });
    children.push(h('form', {
      onsubmit: submitted(async () => {
        await post('/players/me/email/confirm', { code: code.value.trim() });
        say('Address confirmed.');
        again();
      }),
    }, field('Code', code, `The code mailed to ${info.address}.`), h('button', { type: 'submit' }, 'Confirm')));
  } else if (info.confirmed) {
    children.push(h('p', {}, 'Confirmed: ', h('strong', {}, info.address), '.'));
  }
  if (info.address) {
    const boxes = {};
    const labels = {
      your_turn: 'It is my move',
      offers: 'A draw or takeback is asked',
      game_finished: 'A game ended',
      clock: 'My clock runs low (24 hours and 1 hour left)',
      invited: 'Someone invites me to a game',
      game_started: 'A game of mine started',
    };
    const prefs = Object.entries(labels).map(([key, label]) => {
      boxes[key] = h('input', { type: 'checkbox', name: key });
      boxes[key].checked = !!info.notifications[key];
      return h('label', { class: 'row' }, boxes[key], ' ', label);
    });
    children.push(h('form', {
      onsubmit: submitted(async () => {
        const body = {};
        for (const key of Object.keys(labels)) body[key] = boxes[key].checked;
        await api('PUT', '/players/me/notifications', body);
        say('Saved.');
        again();
      }),
    }, h('fieldset', {}, h('legend', {}, 'Mail me when'), ...prefs),
    info.unsubscribed ? h('p', { class: 'muted' }, 'You unsubscribed from a mail: saving turns game mail on again.') : null,
    h('button', { type: 'submit' }, 'Save')));
    children.push(h('button', {
      class: 'secondary',
      onclick: orSay(async () => {
        await del('/players/me/email');
        say('Address removed: no more mail.');
        again();
      }),
    }, 'Remove the address'));
  }
  mount(section, ...children);
  return section;
}
