import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { updateAccountSettings } from '../../store/accounts.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Issue 36 point 4: the web app's pages are written in the account's language, else the browser's
 * Accept-Language, else the operator's default (English in tests); `lang` and `dir` say which.
 */
await describeEachEngine('web app: the language of the pages', (ctx) => {
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

  test('signed out: the browser’s Accept-Language, best first; English when it names none Tidings speaks', async () => {
    const arabic = await new WebClient(app).get('/sign-in', { 'accept-language': 'ar-EG,ar;q=0.9,en;q=0.5' });
    assert.match(arabic.body, /<html lang="ar" dir="rtl">/);
    const unknown = await new WebClient(app).get('/sign-in', { 'accept-language': 'tlh,x-klingon;q=0.8' });
    assert.match(unknown.body, /<html lang="en" dir="ltr">/);
    const none = await new WebClient(app).get('/sign-in');
    assert.match(none.body, /<html lang="en" dir="ltr">/);
  });

  test('signed in without a language: the browser’s; with one: the account’s, whatever the browser asks', async () => {
    const asked = await client.get('/queue', { 'accept-language': 'ar' });
    assert.match(asked.body, /<html lang="ar" dir="rtl">/);
    assert.match(asked.body, />قائمة الانتظار<\/a/, 'the navigation in Arabic');

    await updateAccountSettings(ctx.store().db, account.id, { language: 'en' });
    const english = await client.get('/queue', { 'accept-language': 'ar' });
    assert.match(english.body, /<html lang="en" dir="ltr">/);
    assert.match(english.body, /aria-current="page"\s*>Queue<\/a/);

    await updateAccountSettings(ctx.store().db, account.id, { language: 'ar' });
    const arabic = await client.get('/queue');
    assert.match(arabic.body, /<html lang="ar" dir="rtl">/);
    assert.match(arabic.body, /تسجيل الخروج/, 'Sign out in Arabic');
    assert.doesNotMatch(arabic.body, />Sign out</);
  });

  test('an error page of a signed-out browser is in its language too', async () => {
    const missing = await new WebClient(app).get('/no-such-page', { 'accept-language': 'ar' });
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /<html lang="ar" dir="rtl">/);
  });
});
