import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { rotateDigestFeed } from '../../accounts/digestToken.js';
import { digestTokenOf } from '../../digest/token.js';
import { createDigest } from '../../store/digests.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Issue 13, bug 2: a digest link without a valid token answers a browser with a page (its owner, signed
 * in, with the digest), feed readers and scripts with the JSON as before. Bug 9: the digest's page links
 * to the archive and to the digests before and after it.
 */
await describeEachEngine('web app: digest links', (ctx) => {
  let app: FastifyInstance;
  let owner: Awaited<ReturnType<typeof newAccount>>;
  let ids: number[] = [];
  let token = '';
  const BASE = 'http://127.0.0.1:8080';

  const digest = async (accountId: number, n: number): Promise<number> => {
    const row = await createDigest(ctx.store().db, accountId, {
      localDate: `2026-03-0${n}`,
      createdAt: `2026-03-0${n}T07:00:00.000Z`,
      itemCount: 0,
      savedCount: 0,
      feedCount: 0,
      remaining: 0,
      delivery: 'not_emailed',
      nextAttemptAt: null,
      messageId: `links-${accountId}-${n}`,
    });
    assert.ok(row !== null);
    return row.id;
  };

  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
    owner = await newAccount(ctx.store());
    const other = await newAccount(ctx.store());
    ids = [
      await digest(owner.id, 1),
      await digest(other.id, 1),
      await digest(owner.id, 2),
      await digest(owner.id, 3),
    ];
    ids = [ids[0] ?? 0, ids[2] ?? 0, ids[3] ?? 0];
    token = (await digestTokenOf(ctx.store().db, owner.id)) ?? '';
  });
  after(() => app.close());

  test('without a token, a browser gets a page that says what happened and where to go', async () => {
    const res = await app.inject({
      method: 'GET',
      url: `/digests/${ids[0]}`,
      headers: { accept: 'text/html' },
    });
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /This link has expired or was reset/);
    assert.match(res.body, new RegExp(`<a href="/sign-in\\?next=%2Fdigests%2F${ids[0]}">Sign in</a>`));
    assert.doesNotMatch(res.body, /40401/);
  });

  test('feed readers and scripts keep the JSON answer', async () => {
    for (const headers of [{}, { accept: 'application/json' }, { accept: 'application/atom+xml, */*' }]) {
      const res = await app.inject({ method: 'GET', url: `/digests/${ids[0]}?token=wrong`, headers });
      assert.equal(res.statusCode, 404);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.json<{ code: number }>().code, 40401);
    }
  });

  test('signed in, the owner is taken to the digest; another account is not told it exists', async () => {
    const client = new WebClient(app);
    await client.signIn(owner.apiKey);
    const res = await client.get(`/digests/${ids[1]}?page=1`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/digests/${ids[1]}?token=${encodeURIComponent(token)}`);

    // An e-mailed link whose token was reset since: the same.
    await rotateDigestFeed(ctx.store(), owner.id, BASE);
    const fresh = (await digestTokenOf(ctx.store().db, owner.id)) ?? '';
    const old = await client.get(`/digests/${ids[1]}?token=${encodeURIComponent(token)}`);
    assert.equal(old.statusCode, 303);
    assert.equal(old.headers.location, `/digests/${ids[1]}?token=${encodeURIComponent(fresh)}`);
    token = fresh;

    const stranger = new WebClient(app);
    await stranger.signIn((await newAccount(ctx.store())).apiKey);
    const refused = await stranger.get(`/digests/${ids[1]}`);
    assert.equal(refused.statusCode, 404);
    assert.match(refused.body, /This link has expired or was reset/);
    assert.match(refused.body, /<a href="\/digests">Your digests<\/a>/);
  });

  test('a digest’s page links to the archive and to the digests before and after it', async () => {
    const q = `token=${encodeURIComponent(token)}`;
    const page = async (id: number | undefined) =>
      (await app.inject({ method: 'GET', url: `/digests/${id}?${q}` })).body.replace(/&amp;/g, '&');
    const middle = await page(ids[1]);
    assert.match(middle, new RegExp(`<a [^>]*href="${BASE}/digests"[^>]*>← All digests</a>`));
    assert.match(
      middle,
      new RegExp(`<a [^>]*href="${BASE}/digests/${ids[0]}\\?${q}"[^>]*>Previous digest</a>`),
    );
    assert.match(middle, new RegExp(`<a [^>]*href="${BASE}/digests/${ids[2]}\\?${q}"[^>]*>Next digest</a>`));
    const first = await page(ids[0]);
    assert.doesNotMatch(first, /Previous digest/);
    assert.match(first, /Next digest/);
    const last = await page(ids[2]);
    assert.match(last, /Previous digest/);
    assert.doesNotMatch(last, /Next digest/);
  });
});
