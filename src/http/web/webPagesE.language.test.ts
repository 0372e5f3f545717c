import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { setOperatorLanguage } from '../../i18n/locale.js';
import { accountById, updateAccountSettings } from '../../store/accounts.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Issue 36 points 4 and 6 for Accounts (administrators), invitations, a digest's link, the reader and the
 * reading-list upload: rendered in the pseudo-locale en-XA, no English word is left; in Arabic the pages
 * run right to left.
 */
await describeEachEngine('web app: Accounts and invitations in the reader’s language', (ctx) => {
  let app: FastifyInstance;
  let admin: Awaited<ReturnType<typeof newAccount>>;
  let client: WebClient;

  before(async () => {
    app = webServer(ctx.store(), {});
    await app.ready();
    admin = await newAccount(ctx.store()); // the first account of this database: an administrator
    client = new WebClient(app);
    await client.signIn(admin.apiKey);
  });
  after(() => app.close());

  test('en-XA: Accounts with people, a disabled one, invitations, what was just made, and its notices', async () => {
    await updateAccountSettings(ctx.store().db, admin.id, { language: 'en-XA' });
    const other = await newAccount(ctx.store());
    const nameOf = async (id: number) => (await accountById(ctx.store().db, id))?.name ?? '';
    const content = [
      await nameOf(admin.id),
      await nameOf(other.id),
      'Quincy',
      'quincy@example.org',
      'Zora',
      'UTC',
    ];
    await client.get('/accounts');
    assert.equal((await client.post(`/accounts/${other.id}/disable`)).statusCode, 303);
    assert.equal((await client.post(`/accounts/${other.id}/admin`, { admin: 'on' })).statusCode, 303);
    const invited = await client.post('/accounts/invitations', {
      note: 'Quincy',
      email: 'quincy@example.org',
      days: '7',
    });
    assert.equal(invited.statusCode, 200);
    assert.match(invited.body, /id="invitation-url"/);
    assert.deepEqual(englishWordsOf(invited.body, content), []);
    const made = await client.post('/accounts', { name: 'Zora', timezone: 'UTC' });
    assert.equal(made.statusCode, 200);
    assert.match(made.body, /id="created-account-key"/);
    assert.deepEqual(englishWordsOf(made.body, content), []);
    for (const notice of ['', 'disabled', 'enabled', 'promoted', 'demoted', 'revoked']) {
      const res = await client.get(`/accounts?notice=${notice}`);
      assert.equal(res.statusCode, 200, notice);
      assert.match(res.body, /<html lang="en-XA" dir="ltr">/, notice);
      assert.match(res.body, /<strong>[^<]+<\/strong>/, 'the disabled account is marked');
      assert.deepEqual(englishWordsOf(res.body, content), [], notice);
    }
    const missing = await client.post('/accounts/invitations/999999/revoke');
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(englishWordsOf(missing.body, content), []);
  });

  test('en-XA: a digest link that opens nothing leaves no English word, signed in or not', async () => {
    await updateAccountSettings(ctx.store().db, admin.id, { language: 'en-XA' });
    const res = await client.get('/digests/999999');
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /<html lang="en-XA" dir="ltr">/);
    assert.match(res.body, /href="\/digests"/);
    assert.deepEqual(
      englishWordsOf(res.body, [(await accountById(ctx.store().db, admin.id))?.name ?? '']),
      [],
    );
    setOperatorLanguage('en-XA');
    try {
      const out = await new WebClient(app).get('/digests/999999');
      assert.equal(out.statusCode, 404);
      assert.match(out.body, /href="\/sign-in\?next=/);
      assert.deepEqual(englishWordsOf(out.body), []);
    } finally {
      setOperatorLanguage('en');
    }
  });

  test('ar: Accounts runs right to left, in Arabic', async () => {
    await updateAccountSettings(ctx.store().db, admin.id, { language: 'ar' });
    const page = await client.get('/accounts');
    assert.match(page.body, /<html lang="ar" dir="rtl">/);
    assert.match(page.body, /<h1>الحسابات<\/h1>/);
  });
});
