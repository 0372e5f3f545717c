import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { updateAccountSettings } from '../../store/accounts.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Issue 36 point 1: refusals whose error comes from below the transports with an English message (a
 * search, an administrator's own account, an e-mail address, a feed's address and filter) are shown in the
 * reader's words. In the pseudo-locale en-XA, the refusal on the page has no English word.
 */

/** The text of the page's refusals (`class="error"`), what the reader typed taken out. */
function refusalsOf(body: string): string {
  const found = [...body.matchAll(/<(?:p|div) class="error"[^>]*>([\s\S]*?)<\/(?:p|div)>/g)].map(
    (m) => m[1] ?? '',
  );
  assert.ok(found.length > 0, 'a refusal on the page');
  return found.join('\n');
}

await describeEachEngine('web app: refusals in the reader’s language', (ctx) => {
  let app: FastifyInstance;
  let admin: Awaited<ReturnType<typeof newAccount>>;
  let client: WebClient;

  before(async () => {
    app = webServer(ctx.store(), {});
    await app.ready();
    admin = await newAccount(ctx.store()); // the first account: an administrator
    await updateAccountSettings(ctx.store().db, admin.id, { language: 'en-XA' });
    client = new WebClient(app);
    await client.signIn(admin.apiKey);
  });
  after(() => app.close());

  test('en-XA: search, Accounts and Feeds refusals leave no English word', async () => {
    const refused: [string, { statusCode: number; body: string }][] = [];
    for (const q of ['-pelican', 'x'.repeat(201)]) {
      refused.push([`search ${q.slice(0, 10)}`, await client.get(`/search?q=${encodeURIComponent(q)}`)]);
    }
    await client.get('/accounts');
    refused.push(['disable oneself', await client.post(`/accounts/${admin.id}/disable`)]);
    refused.push(['a bad address', await client.post('/accounts', { name: 'Bea', email: 'not an address' })]);
    await client.get('/feeds');
    refused.push(['an ftp feed', await client.post('/feeds', { url: 'ftp://files.example/feed' })]);
    refused.push([
      'a filter RE2 cannot run',
      await client.post('/feeds', { url: 'https://feeds.example/feed', include: '/(?<=foo)bar/' }),
    ]);
    await client.get('/settings/sign-in');
    for (const password of ['short', 'x'.repeat(1025)]) {
      refused.push([
        `a password of ${password.length}`,
        await client.post('/settings/sign-in/password', { password, confirm: password }),
      ]);
    }
    for (const [what, res] of refused) {
      assert.equal(res.statusCode, 400, what);
      const words = refusalsOf(res.body);
      assert.deepEqual(
        englishWordsOf(words, ['Bea', 'not an address', '/(?<=foo)bar/', 'ftp://files.example/feed']),
        [],
        `${what}: ${words}`,
      );
    }
  });
});
