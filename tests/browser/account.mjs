// The account page's keys, as a player with three of them sees them: the one this browser got
// at sign-up and two made over HTTP (one labelled "phone" and used, one "laptop" never used).
// Each is listed with its label and its last use, and no secret is on the page. One is revoked
// from the page and stops acting over HTTP at once; "Sign out everywhere else" leaves only this
// browser's, and the page (and the lobby) still work with it.
// Prints one line `RESULT {json}` for the Rust test.

import {
  BASE, context, unnamedControls, api, check, signUp, secret, run, snapper,
} from './lib.mjs';

const result = { screenshots: [], overflow: {}, unnamed: {} };
const snap = snapper(result);

/** A token made over HTTP with the bearer `key`, as a program or another device asks for one. */
async function issue(key, label) {
  const res = await fetch(`${BASE}/v1/players/me/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ label }),
  });
  check(res.status === 201, `a token is issued: ${res.status}`);
  const body = await res.json();
  secret(body.token);
  return body;
}

/** The status of GET /v1/players/me with a token: 200 while it acts, 401 once revoked. */
async function acts(key) {
  const res = await fetch(`${BASE}/v1/players/me`, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status;
}

/** The rows of the keys card as the page draws them. */
async function rows(page) {
  return page.getByTestId('token').evaluateAll((els) => els.map((e) => ({
    id: e.dataset.tokenId, text: e.textContent, revoke: Boolean(e.querySelector('[data-testid="revoke-token"]')),
  })));
}

await run(result, async (browser) => {
  for (const scheme of ['light', 'dark']) {
    const ctx = await context(browser, `ana-${scheme}`, { width: 1280, height: 900 }, { options: { colorScheme: scheme } });
    const page = await ctx.newPage();
    const key = await signUp(page, scheme === 'light' ? 'Ana' : 'Bea');
    await page.waitForURL(/#\/$/);
    const phone = await issue(key, 'phone');
    const laptop = await issue(key, 'laptop');
    // The phone signs in once: its last use is known.
    check(await acts(phone.token) === 200, 'the phone key acts');
    // Its use is written in the background: wait until the server lists it.
    for (let tries = 0; ; tries += 1) {
      const listedNow = (await api('/players/me/tokens', key)).items;
      if (listedNow.find((t) => t.id === phone.listed.id)?.last_used_at) break;
      check(tries < 100, "the phone key's use is written");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    await page.goto(`${BASE}/#/account`);
    const card = page.getByTestId('tokens');
    await card.getByTestId('token').nth(2).waitFor();
    const listed = await rows(page);
    check(listed.length === 3, `three keys listed: ${JSON.stringify(listed)}`);
    const row = (id) => listed.find((r) => r.id === id);
    check(row(phone.listed.id) && /phone/.test(row(phone.listed.id).text), 'the phone key is listed by its label');
    check(row(laptop.listed.id) && /laptop/.test(row(laptop.listed.id).text), 'the laptop key is listed by its label');
    check(/last used (?!not yet)/.test(row(phone.listed.id).text), `the phone's last use is shown: ${row(phone.listed.id).text}`);
    check(/last used not yet/.test(row(laptop.listed.id).text), `the laptop was never used: ${row(laptop.listed.id).text}`);
    const current = listed.filter((r) => !r.revoke);
    check(current.length === 1 && /this browser/.test(current[0].text), `one key is this browser's and has no Revoke: ${JSON.stringify(current)}`);
    const html = await page.content();
    for (const [what, secretText] of [['this browser', key], ['phone', phone.token], ['laptop', laptop.token]]) {
      check(!html.includes(secretText), `the ${what} key's secret is not on the page`);
    }
    result.unnamed[`tokens-${scheme}`] = await unnamedControls(page);
    if (scheme === 'light') await snap(page, 'account-tokens');
    else await snap(page, 'account-tokens-dark');

    // The laptop key is revoked from the page: it acts for no one from then on.
    await card.locator(`[data-token-id="${laptop.listed.id}"]`).getByTestId('revoke-token').click();
    await card.locator(`[data-token-id="${laptop.listed.id}"]`).waitFor({ state: 'detached' });
    check(await acts(laptop.token) === 401, 'the revoked key no longer acts');
    check(await acts(phone.token) === 200, 'the other key still acts');
    check((await rows(page)).length === 2, 'two keys left');

    // Sign out everywhere else: only this browser's key is left, and the page goes on.
    await card.getByTestId('revoke-others').click();
    await page.locator('#status').filter({ hasText: 'Signed out everywhere else: 1 key revoked' }).waitFor();
    await card.getByTestId('only-this-key').waitFor();
    check(await card.getByTestId('revoke-others').count() === 0, 'nothing else to sign out of');
    const left = await rows(page);
    check(left.length === 1 && !left[0].revoke && /this browser/.test(left[0].text), `only this browser's key is left: ${JSON.stringify(left)}`);
    check(await acts(phone.token) === 401, 'the phone key no longer acts');
    check(await acts(key) === 200, "this browser's key still acts");
    const mine = (await api('/players/me/tokens', key)).items;
    check(mine.length === 1 && mine[0].current, `the server lists one key: ${JSON.stringify(mine)}`);
    if (scheme === 'light') await snap(page, 'account-tokens-one');
    // The page still works: reloaded, still signed in; the lobby answers too.
    await page.reload();
    await page.getByTestId('me').filter({ hasText: scheme === 'light' ? 'Ana' : 'Bea' }).waitFor();
    await card.getByTestId('token').first().waitFor();
    check((await rows(page)).length === 1, 'one key after a reload');
    await page.goto(`${BASE}/#/`);
    await page.getByRole('button', { name: 'Create the game' }).waitFor();
    result[`left-${scheme}`] = left.length;
    await ctx.close();
  }

});
