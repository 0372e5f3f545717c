import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ensureDigestToken } from '../../digest/token.js';
import { issueKey } from '../../accounts/apiKeys.js';
import { addSavedUrl } from '../../queue/add.js';
import { apiKeysByAccount } from '../../store/apiKeys.js';
import { findOrCreateFeed } from '../../store/feeds.js';
import { createSubscription, subscriptionsByAccount } from '../../store/subscriptions.js';
import { queueItemsPage } from '../../store/queueItems.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * One account can never see or change another's data through the web app: every route is tried by a
 * signed-in reader with the other account's ids, and the other account is checked to be untouched.
 */
await describeEachEngine('web app: accounts are isolated', (ctx) => {
  let app: FastifyInstance;
  let alice: Awaited<ReturnType<typeof newAccount>>;
  let bob: { id: number; apiKey: string };
  let aliceItemId: number;
  let aliceKeyId: number;
  let secondAliceKey: string;
  let bobClient: WebClient;
  let aliceClient: WebClient;

  const aliceQueue = async (): Promise<string[]> =>
    (await queueItemsPage(ctx.store().db, alice.id, { offset: 0, limit: 100 })).map((i) => i.url);

  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
    alice = await newAccount(ctx.store());
    bob = await newAccount(ctx.store());
    await addSavedUrl(
      ctx.store(),
      alice.id,
      { url: 'https://alice.example/private', title: 'Alice’s secret', source: 'api' },
      { limit: 100 },
    );
    const [item] = await queueItemsPage(ctx.store().db, alice.id, { offset: 0, limit: 1 });
    assert.ok(item !== undefined);
    aliceItemId = item.id;
    const second = await issueKey(ctx.store(), alice.id, 'alice-laptop');
    assert.ok(second !== null);
    aliceKeyId = second.keyInfo.id;
    secondAliceKey = second.apiKey;
    await addSavedUrl(
      ctx.store(),
      bob.id,
      { url: 'https://bob.example/', title: 'Bob’s', source: 'api' },
      { limit: 100 },
    );
    bobClient = new WebClient(app);
    await bobClient.signIn(bob.apiKey);
    aliceClient = new WebClient(app);
    await aliceClient.signIn(alice.apiKey);
  });
  after(() => app.close());

  test('pages show only the reader’s own queue and keys', async () => {
    const queue = await bobClient.get('/queue');
    assert.match(queue.body, /bob\.example/);
    assert.doesNotMatch(queue.body, /alice|Alice/);
    const keys = await bobClient.get('/keys');
    assert.doesNotMatch(keys.body, /alice-laptop/);
    const alicePrefixes = (await apiKeysByAccount(ctx.store().db, alice.id)).map((k) => k.prefix);
    for (const prefix of alicePrefixes) assert.ok(!keys.body.includes(prefix));
  });

  test('removing another account’s queue item is 404 and leaves it in place', async () => {
    await bobClient.get('/queue');
    const res = await bobClient.post(`/queue/${aliceItemId}/remove`);
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.deepEqual(await aliceQueue(), ['https://alice.example/private']);
  });

  test('renaming or revoking another account’s key is 404 and changes nothing', async () => {
    await bobClient.get('/keys');
    assert.equal((await bobClient.post(`/keys/${aliceKeyId}/rename`, { name: 'pwned' })).statusCode, 404);
    assert.equal((await bobClient.post(`/keys/${aliceKeyId}/revoke`)).statusCode, 404);
    const key = (await apiKeysByAccount(ctx.store().db, alice.id)).find((k) => k.id === aliceKeyId);
    assert.equal(key?.name, 'alice-laptop');
    assert.equal(key.revoked_at, null);
    const api = await app.inject({ method: 'GET', url: `/api/v1/articles?apiKey=${secondAliceKey}` });
    assert.equal(api.statusCode, 200);
  });

  test('the feed address shown is the reader’s own, and resetting it leaves the other account’s alone', async () => {
    const aliceToken = await ensureDigestToken(ctx.store().db, alice.id);
    assert.ok(aliceToken !== null);
    const page = await bobClient.get('/keys');
    assert.ok(!page.body.includes(aliceToken));
    await bobClient.post('/keys/feed/reset');
    assert.equal(await ensureDigestToken(ctx.store().db, alice.id), aliceToken);
  });

  test('another account’s feed subscription can be neither seen, renamed, filtered nor removed', async () => {
    const at = new Date().toISOString();
    const feed = await findOrCreateFeed(ctx.store().db, {
      url: 'https://alice.example/feed',
      title: 'Alice feed',
      siteUrl: null,
      at,
    });
    const { subscription } = await createSubscription(ctx.store().db, alice.id, {
      feedId: feed.id,
      title: 'Alice’s own',
      at,
    });
    const page = await bobClient.get('/feeds');
    assert.doesNotMatch(page.body, /alice/i);
    const opml = await bobClient.get('/feeds/export.opml');
    assert.doesNotMatch(opml.body, /alice/i);
    const id = subscription.id;
    assert.equal((await bobClient.post(`/feeds/${id}/rename`, { title: 'pwned' })).statusCode, 404);
    assert.equal(
      (await bobClient.post(`/feeds/${id}/filters`, { include: 'x', exclude: '' })).statusCode,
      404,
    );
    assert.equal((await bobClient.post(`/feeds/${id}/remove`)).statusCode, 404);
    const [after] = await subscriptionsByAccount(ctx.store().db, alice.id);
    assert.deepEqual([after?.title, after?.includeFilter], ['Alice’s own', null]);
  });

  test('another account’s key cannot be filled into the save page', async () => {
    await bobClient.get('/save');
    const res = await bobClient.post('/save', { key: alice.apiKey });
    assert.equal(res.statusCode, 400);
    assert.ok(!res.body.includes(alice.apiKey));
  });

  test('what a reader adds or creates lands in their own account only', async () => {
    await bobClient.get('/queue');
    await bobClient.post('/queue', { url: 'https://bob.example/new' });
    await bobClient.get('/keys');
    await bobClient.post('/keys', { name: 'bob-phone' });
    await bobClient.get('/save');
    await bobClient.post('/save/new-key');
    assert.deepEqual(await aliceQueue(), ['https://alice.example/private']);
    const aliceKeys = (await apiKeysByAccount(ctx.store().db, alice.id)).map((k) => k.name).sort();
    assert.deepEqual(aliceKeys, ['alice-laptop', 'default']);
  });

  test('a session’s CSRF token does not work in another account’s session', async () => {
    await aliceClient.get('/queue');
    await bobClient.get('/queue');
    const res = await bobClient.post('/queue', { url: 'https://bob.example/csrf', _csrf: aliceClient.csrf });
    assert.equal(res.statusCode, 403);
    const out = await bobClient.post('/sign-out', { _csrf: aliceClient.csrf });
    assert.equal(out.headers.location, '/queue', 'not signed out');
    assert.equal((await bobClient.get('/queue')).statusCode, 200);
  });

  test('ids that do not exist, or are not ids, are 404 as well', async () => {
    await bobClient.get('/keys');
    for (const id of ['999999', '0', '-1', '1e3', 'x']) {
      assert.equal((await bobClient.post(`/queue/${id}/remove`)).statusCode, 404, id);
      assert.equal((await bobClient.post(`/keys/${id}/rename`, { name: 'n' })).statusCode, 404, id);
      assert.equal((await bobClient.post(`/keys/${id}/revoke`)).statusCode, 404, id);
      assert.equal((await bobClient.post(`/feeds/${id}/rename`, { title: 'n' })).statusCode, 404, id);
      assert.equal((await bobClient.post(`/feeds/${id}/remove`)).statusCode, 404, id);
    }
  });
});
