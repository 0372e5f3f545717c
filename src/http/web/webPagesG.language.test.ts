import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { inviteAccount } from '../../accounts/invitations.js';
import { setOperatorLanguage } from '../../i18n/locale.js';
import { accountById, updateAccountSettings } from '../../store/accounts.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Issue 36 points 1 and 6 for Keys, Apps, the ways to save a link (saveInstructions.ts, on the Keys and
 * Save pages) and an invitation's pages: rendered in the pseudo-locale en-XA, no English word is left in
 * their ordinary states (empty and with items, a notice, an error); German and Japanese sentences read as
 * written for them.
 */
const BASE = 'http://127.0.0.1:8080';
/** Machine words, not translated: the command, the variables, the method, the field, a zone’s IANA name, a path. */
const MACHINE = ['curl', 'TIDINGS_KEY', 'TIDINGS_BASE_URL', 'POST', 'url', 'Europe/Berlin', '/openapi.json'];

/** The English words left in a page, its curl lines (commands) and keys' prefixes (tdg_…) taken out. */
const englishIn = (body: string, content: readonly string[]): string[] =>
  englishWordsOf(
    body.replace(/<pre><code>curl [\s\S]*?<\/code><\/pre>/g, ' ').replace(/tdg_[0-9a-f]+/g, ' '),
    [...content, ...MACHINE],
  );

await describeEachEngine('web app: Keys, Apps, saving and invitations in the reader’s language', (ctx) => {
  let app: FastifyInstance;
  let account: Awaited<ReturnType<typeof newAccount>>;
  let client: WebClient;
  let name = '';
  /** The fixture's own text: the account's and the keys' and apps' names, the key's prefix. */
  const content = (): string[] => [name, 'default', 'spare', 'Kobo'];

  before(async () => {
    app = webServer(ctx.store(), { baseUrl: BASE });
    await app.ready();
    account = await newAccount(ctx.store());
    name = (await accountById(ctx.store().db, account.id))?.name ?? '';
    client = new WebClient(app);
    await client.signIn(account.apiKey);
    await updateAccountSettings(ctx.store().db, account.id, { language: 'en-XA' });
  });
  after(() => app.close());

  test('en-XA: Keys with one key and with two, a new key, its notices and its errors', async () => {
    const alone = await client.get('/keys');
    assert.equal(alone.statusCode, 200);
    assert.match(alone.body, /<html lang="en-XA" dir="ltr">/);
    assert.match(alone.body, /<p class="hint">/, 'the only key says why it has no revoke button');
    assert.deepEqual(englishIn(alone.body, content()), []);

    const made = await client.post('/keys', { name: 'spare' });
    assert.equal(made.statusCode, 200);
    assert.match(made.body, /id="created-key"/);
    assert.match(made.body, /id="address-warning"/, 'a loopback http address is warned about');
    assert.match(made.body, /class="bookmarklet" href="javascript:/);
    assert.deepEqual(englishIn(made.body, content()), []);
    const code = decodeURIComponent(/href="javascript:([^"]+)"/.exec(made.body)?.[1] ?? '');
    assert.doesNotMatch(code, /could not save/, 'the bookmarklet speaks the reader’s language');

    const spare = /<span class="title">spare<\/span[\s\S]*?action="\/keys\/(\d+)\/rename"/.exec(
      made.body,
    )?.[1];
    assert.ok(spare !== undefined);
    await ctx
      .store()
      .db.updateTable('api_keys')
      .set({ last_used_at: new Date(Date.now() - 3 * 3600_000).toISOString() })
      .where('id', '=', Number(spare))
      .execute();
    for (const notice of ['', 'renamed', 'revoked', 'feed_reset']) {
      const res = await client.get(`/keys?notice=${notice}`);
      assert.equal(res.statusCode, 200, notice);
      if (notice !== '') assert.match(res.body, /class="notice"/, notice);
      assert.deepEqual(englishIn(res.body, content()), [], notice);
    }
    const unnamed = await client.post('/keys', { name: ' ' });
    assert.equal(unnamed.statusCode, 400);
    assert.match(unnamed.body, /class="error"/);
    assert.deepEqual(englishIn(unnamed.body, content()), []);
    const own = /<span class="title">default<\/span[\s\S]*?action="\/keys\/(\d+)\/rename"/.exec(
      unnamed.body,
    )?.[1];
    assert.ok(own !== undefined);
    assert.equal((await client.post(`/keys/${spare}/revoke`)).statusCode, 303);
    const revoked = await client.get('/keys');
    assert.match(revoked.body, /<h2>[^<]+<\/h2>\s*<ul class="items">[\s\S]*spare/, 'a revoked key is listed');
    assert.deepEqual(englishIn(revoked.body, content()), []);
    const last = await client.post(`/keys/${own}/revoke`);
    assert.equal(last.statusCode, 409);
    assert.deepEqual(englishIn(last.body, content()), []);
    const gone = await client.post('/keys/999999/rename', { name: 'x' });
    assert.equal(gone.statusCode, 404);
    assert.deepEqual(englishIn(gone.body, content()), []);
  });

  test('en-XA: the Save page’s instructions, without a key and with one', async () => {
    const shown = await client.get('/save');
    assert.equal(shown.statusCode, 200);
    assert.match(shown.body, /<h2 id="phone">/);
    assert.deepEqual(englishIn(shown.body, content()), []);
    const filled = await client.post('/save', { key: account.apiKey });
    assert.equal(filled.statusCode, 200);
    assert.deepEqual(englishIn(filled.body, content()), []);
  });

  test('en-XA: Apps empty, with an app just made, listed, revoked, and refused', async () => {
    const empty = await client.get('/settings/apps');
    assert.equal(empty.statusCode, 200);
    assert.deepEqual(englishIn(empty.body, content()), []);
    const made = await client.post('/settings/apps', { name: 'Kobo' });
    assert.equal(made.statusCode, 200);
    assert.match(made.body, /id="app-client-secret"/);
    const clientId = /id="app-client-id" type="text" readonly value="([^"]*)"/.exec(made.body)?.[1] ?? '';
    const words = [...content(), clientId];
    assert.deepEqual(englishIn(made.body, words), []);
    await ctx
      .store()
      .db.updateTable('api_clients')
      .set({ last_used_at: new Date(Date.now() - 3 * 3600_000).toISOString() })
      .execute();
    const listed = await client.get('/settings/apps');
    assert.match(listed.body, /<time /);
    assert.deepEqual(englishIn(listed.body, words), []);
    const id = /action="\/settings\/apps\/(\d+)\/revoke"/.exec(listed.body)?.[1];
    assert.equal((await client.post(`/settings/apps/${id}/revoke`)).statusCode, 303);
    const notice = await client.get('/settings/apps?notice=revoked');
    assert.match(notice.body, /class="notice"/);
    assert.deepEqual(englishIn(notice.body, words), []);
    const unnamed = await client.post('/settings/apps', { name: '' });
    assert.equal(unnamed.statusCode, 400);
    assert.deepEqual(englishIn(unnamed.body, words), []);
    const again = await client.post(`/settings/apps/${id}/revoke`);
    assert.equal(again.statusCode, 404);
    assert.deepEqual(englishIn(again.body, words), []);
  });

  test('en-XA: an invitation’s form, its errors, the welcome page, and a link that no longer works', async () => {
    const { token } = await inviteAccount(ctx.store(), account.id, { days: 7 });
    setOperatorLanguage('en-XA');
    try {
      const guest = new WebClient(app);
      const path = `/invite/${token}`;
      const typed = ['Zora', 'UTC', 'zora@example.org'];
      const form = await guest.get(path);
      assert.equal(form.statusCode, 200);
      assert.match(form.body, /<html lang="en-XA" dir="ltr">/);
      assert.deepEqual(englishIn(form.body, typed), []);
      const differ = await guest.post(path, {
        name: 'Zora',
        password: 'a long password',
        confirm: 'another',
      });
      assert.equal(differ.statusCode, 400);
      assert.match(differ.body, /id="accept-error"/);
      assert.deepEqual(englishIn(differ.body, typed), []);
      const expired = await guest.post(path, { _csrf: 'stale', name: 'Zora' });
      assert.equal(expired.statusCode, 403);
      assert.deepEqual(englishIn(expired.body, typed), []);
      // Signed in elsewhere: the form says so before it signs this browser in as the new account.
      await client.get('/keys');
      const signedIn = await client.get(path);
      assert.match(signedIn.body, /class="notice"/);
      assert.deepEqual(englishIn(signedIn.body, [...typed, ...content()]), []);
      const welcome = await guest.post(path, { name: 'Zora', email: 'zora@example.org', timezone: 'UTC' });
      assert.equal(welcome.statusCode, 200);
      assert.match(welcome.body, /id="first-key"/);
      assert.deepEqual(englishIn(welcome.body, typed), []);
      const used = await new WebClient(app).get(path);
      assert.equal(used.statusCode, 410);
      assert.deepEqual(englishIn(used.body, []), []);
      const unknown = await new WebClient(app).get('/invite/nonsense');
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(englishIn(unknown.body, []), []);
    } finally {
      setOperatorLanguage('en');
    }
  });

  test('de and ja: a key’s dates and the invitation’s password hint read as written for them', async () => {
    await updateAccountSettings(ctx.store().db, account.id, { language: 'de' });
    const keys = await client.get('/keys');
    assert.match(keys.body, /<h1>Schlüssel<\/h1>/);
    assert.match(keys.body, /erstellt <time /);
    await updateAccountSettings(ctx.store().db, account.id, { language: 'ja' });
    const { token } = await inviteAccount(ctx.store(), account.id, { days: 7 });
    const form = await client.get(`/invite/${token}`);
    assert.match(form.body, /10文字以上/);
    await updateAccountSettings(ctx.store().db, account.id, { language: 'en-XA' });
  });
});
