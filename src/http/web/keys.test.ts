import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Script } from 'node:vm';
import type { FastifyInstance } from 'fastify';
import { apiKeysByAccount } from '../../store/apiKeys.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';
import { bookmarkletCode, bookmarkletHref, curlExamples } from './saveInstructions.js';

const BASE = 'http://127.0.0.1:8080';
const KEY_RE = /value="(tdg_[0-9a-f]{76})"/;

await describeEachEngine('web app: keys and save from anywhere', (ctx) => {
  let app: FastifyInstance;
  let account: { id: number; apiKey: string };
  let client: WebClient;
  const apiStatus = async (key: string): Promise<number> =>
    (await app.inject({ method: 'GET', url: `/api/v1/articles?apiKey=${key}` })).statusCode;

  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
    account = await newAccount(ctx.store());
    client = new WebClient(app);
    await client.signIn(account.apiKey);
  });
  after(() => app.close());

  test('the keys page lists keys by name and prefix, marks the one this browser used, never shows a key', async () => {
    const page = await client.get('/keys');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<span class="title">default<\/span/);
    assert.match(page.body, /this browser signed in with it/);
    assert.match(page.body, /tdg_[0-9a-f]{12}…/);
    assert.doesNotMatch(page.body, /tdg_[0-9a-f]{13,}/, 'no whole key');
  });

  test('a created key is shown once, works with the API, and comes with its bookmarklet and curl lines', async () => {
    await client.get('/keys');
    const res = await client.post('/keys', { name: '  my   phone ' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    const key = KEY_RE.exec(res.body)?.[1];
    assert.ok(key !== undefined, 'the new key is on the page');
    assert.match(res.body, /shown only this once/);
    assert.match(res.body, /Your new key “my phone”/);
    assert.equal(await apiStatus(key), 200);
    assert.ok(
      res.body.includes(`href="${bookmarkletHref(BASE, key).replace(/&/g, '&amp;').replace(/'/g, '&#39;')}"`),
    );
    assert.ok(res.body.includes(`curl -X POST &#39;${BASE}/api?api_key=${key}&#39;`));
    const later = await client.get('/keys');
    assert.doesNotMatch(later.body, new RegExp(key), 'only that once');
    assert.match(later.body, /<span class="title">my phone<\/span/);
  });

  test('a key needs a name of 1 to 100 characters', async () => {
    await client.get('/keys');
    // Control characters too: PostgreSQL refuses a NUL in text, which was a 500 (found by formFuzz).
    for (const name of ['', '   ', 'x'.repeat(101), '\u0000\u0001\r\n']) {
      const res = await client.post('/keys', { name });
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /Give the key a name of 1 to 100 characters/);
    }
  });

  test('rename, then revoke: the API refuses the revoked key from then on', async () => {
    await client.get('/keys');
    const created = await client.post('/keys', { name: 'laptop' });
    const key = KEY_RE.exec(created.body)?.[1] ?? '';
    const info = (await apiKeysByAccount(ctx.store().db, account.id)).find((k) => k.name === 'laptop');
    assert.ok(info !== undefined);
    const renamed = await client.post(`/keys/${info.id}/rename`, { name: 'old laptop' });
    assert.equal(renamed.statusCode, 303);
    assert.equal(renamed.headers.location, '/keys?notice=renamed');
    assert.match((await client.get('/keys?notice=renamed')).body, /old laptop/);
    assert.equal((await client.post(`/keys/${info.id}/rename`, { name: '' })).statusCode, 400);

    const revoked = await client.post(`/keys/${info.id}/revoke`);
    assert.equal(revoked.statusCode, 303);
    assert.equal(revoked.headers.location, '/keys?notice=revoked');
    assert.equal(await apiStatus(key), 401);
    const page = await client.get('/keys?notice=revoked');
    assert.match(page.body, /Revoked keys[\s\S]*old laptop/);
    assert.doesNotMatch(page.body, new RegExp(`/keys/${info.id}/revoke`), 'no button for a revoked key');
    const again = await client.post(`/keys/${info.id}/revoke`);
    assert.equal(again.statusCode, 404);
    assert.equal((await client.get('/queue')).statusCode, 200, 'this browser used another key');
  });

  test('revoking the key this browser signed in with signs it out; the only active key cannot be revoked', async () => {
    const solo = await newAccount(ctx.store());
    const browser = new WebClient(app);
    await browser.signIn(solo.apiKey);
    const [only] = await apiKeysByAccount(ctx.store().db, solo.id);
    assert.ok(only !== undefined);
    // Issue 13, bug 6: the only key offers no button that would be refused, and says why.
    const alone = (await browser.get('/keys')).body;
    assert.doesNotMatch(alone, new RegExp(`action="/keys/${only.id}/revoke"`));
    assert.match(alone, /Your only key: create another key first to revoke this one\./);
    const refused = await browser.post(`/keys/${only.id}/revoke`);
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, /only active key/);
    assert.equal(await apiStatus(solo.apiKey), 200);

    await browser.post('/keys', { name: 'spare' });
    // Each button's accessible name begins with its visible words (WCAG 2.5.3): no aria-label replaces them.
    const two = (await browser.get('/keys')).body;
    assert.doesNotMatch(two, /aria-label="Revoke/);
    assert.match(
      two,
      /<button class="danger" type="submit">\s*Revoke and sign out<span class="visually-hidden"> \(key “default”\)<\/span>/,
    );
    assert.match(
      two,
      /<button class="danger" type="submit">\s*Revoke<span class="visually-hidden"> key “spare”<\/span>/,
    );
    const res = await browser.post(`/keys/${only.id}/revoke`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/sign-in?notice=revoked');
    assert.equal(browser.cookies.has('tidings_session'), false);
    assert.equal(await apiStatus(solo.apiKey), 401);
    assert.match(
      (await browser.get('/sign-in?notice=revoked')).body,
      /You revoked the key this browser signed in with/,
    );
    assert.equal((await browser.get('/keys')).statusCode, 303);
  });

  test('the private feed address of the digests works, and a new one makes the old one stop working', async () => {
    const feedUrl = (body: string): string => {
      const url = /id="feed-url"[^>]*value="([^"]+)"/.exec(body)?.[1];
      assert.ok(url !== undefined, 'the page shows the feed address');
      return url.replace(/&amp;/g, '&').replace(BASE, '');
    };
    const before = feedUrl((await client.get('/keys')).body);
    assert.match(before, /^\/digests\.atom\?token=[A-Za-z0-9_-]+$/);
    assert.equal(feedUrl((await client.get('/keys')).body), before, 'the same address every time');
    assert.equal((await app.inject({ method: 'GET', url: before })).statusCode, 200);
    const reset = await client.post('/keys/feed/reset');
    assert.equal(reset.statusCode, 303);
    assert.equal(reset.headers.location, '/keys?notice=feed_reset#feed');
    const after = feedUrl((await client.get('/keys?notice=feed_reset')).body);
    assert.notEqual(after, before);
    assert.equal((await app.inject({ method: 'GET', url: before })).statusCode, 404);
    assert.equal((await app.inject({ method: 'GET', url: after })).statusCode, 200);
    assert.equal((await client.post('/keys/feed/reset', { _csrf: null })).statusCode, 403);
  });

  test('the save page: curl lines with $TIDINGS_KEY until a key is filled in, phone instructions', async () => {
    const page = await client.get('/save');
    assert.equal(page.statusCode, 200);
    assert.match(
      page.body,
      /curl -X POST &quot;http:\/\/127\.0\.0\.1:8080\/api\/v1\/articles\?apiKey=\$TIDINGS_KEY&quot;/,
    );
    assert.match(
      page.body,
      /curl -X POST &quot;http:\/\/127\.0\.0\.1:8080\/api\?api_key=\$TIDINGS_KEY&quot;/,
    );
    assert.match(page.body, /Show in Share Sheet/);
    assert.doesNotMatch(page.body, /javascript:/, 'no bookmarklet without a key');
  });

  test('“make a bookmarklet” creates a key named bookmarklet and fills it in', async () => {
    await client.get('/save');
    const res = await client.post('/save/new-key');
    assert.equal(res.statusCode, 200);
    const key = KEY_RE.exec(res.body)?.[1];
    assert.ok(key !== undefined);
    assert.equal(await apiStatus(key), 200);
    assert.ok((await apiKeysByAccount(ctx.store().db, account.id)).some((k) => k.name === 'bookmarklet'));
    assert.match(res.body, /class="bookmarklet" href="javascript:/);
  });

  test('a pasted key fills in the instructions only when it is a live key of this account', async () => {
    await client.get('/save');
    const ok = await client.post('/save', { key: account.apiKey });
    assert.equal(ok.statusCode, 200);
    assert.ok(ok.body.includes(`apiKey=${account.apiKey}`));
    const stranger = await newAccount(ctx.store());
    for (const key of [stranger.apiKey, 'tdg_nonsense', '']) {
      const res = await client.post('/save', { key });
      assert.equal(res.statusCode, 400, key);
      assert.match(res.body, /not one of your active keys/);
      assert.doesNotMatch(res.body, /javascript:/);
    }
  });
});

test('the bookmarklet posts the page as a form to variant A and quotes its constants safely', () => {
  const code = bookmarkletCode("https://t.example/o'k", 'tdg_abc');
  assert.ok(code.includes('"https://t.example/o\'k/api/v1/articles?apiKey=tdg_abc"'));
  assert.ok(code.includes('new URLSearchParams(d)'));
  assert.doesNotThrow(() => new Script(code), 'it is valid JavaScript');
  const href = bookmarkletHref('http://127.0.0.1:8080', 'tdg_abc');
  assert.ok(href.startsWith('javascript:'));
  assert.equal(
    decodeURIComponent(href.slice('javascript:'.length)),
    bookmarkletCode('http://127.0.0.1:8080', 'tdg_abc'),
  );
  assert.deepEqual(
    curlExamples("https://x.example/it's", null)[1],
    `curl -X POST "https://x.example/it's/api?api_key=$TIDINGS_KEY" --data-urlencode 'url=https://example.com/article'`,
  );
  assert.equal(
    curlExamples('https://x.example', 'tdg_k')[1]?.startsWith(
      `curl -X POST 'https://x.example/api?api_key=tdg_k'`,
    ),
    true,
  );
});
