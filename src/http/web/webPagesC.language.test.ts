import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { updateAccountSettings } from '../../store/accounts.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Issue 36 points 4 and 6 for the Save page: in the pseudo-locale en-XA no English word is left in the
 * page's own part (the instructions below it, saveInstructions.ts, are cut off here: webPagesG.language.test.ts
 * checks them, their curl lines and machine words aside), and in Arabic the page runs right to left.
 */
/** What the fixture itself writes: the key's prefix, the account's name. */
const FIXTURE = ['tdg_', 'test'];
const ownPart = (body: string): string =>
  body.split(/<div class="error" role="note"|<h2 id="bookmarklet">/)[0] ?? '';

await describeEachEngine('web app: the Save page in the reader’s language', (ctx) => {
  let app: FastifyInstance;
  let account: { id: number; apiKey: string };
  let client: WebClient;

  before(async () => {
    app = webServer(ctx.store(), {});
    await app.ready();
    account = await newAccount(ctx.store());
    client = new WebClient(app);
    await client.signIn(account.apiKey);
  });
  after(() => app.close());

  test('en-XA: the page, a refused key and a new key leave no English word', async () => {
    await updateAccountSettings(ctx.store().db, account.id, { language: 'en-XA' });
    const shown = await client.get('/save');
    assert.equal(shown.statusCode, 200);
    assert.deepEqual(englishWordsOf(ownPart(shown.body), FIXTURE), []);
    const refused = await client.post('/save', { key: 'tdg_nope' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /id="save-error"/);
    assert.deepEqual(englishWordsOf(ownPart(refused.body), FIXTURE), []);
    await client.get('/save');
    const made = await client.post('/save/new-key');
    assert.equal(made.statusCode, 200);
    assert.deepEqual(englishWordsOf(ownPart(made.body), [...FIXTURE, 'bookmarklet']), []);
  });

  test('ar: the page runs right to left', async () => {
    await updateAccountSettings(ctx.store().db, account.id, { language: 'ar' });
    const res = await client.get('/save');
    assert.match(res.body, /<html lang="ar" dir="rtl"/);
  });
});
