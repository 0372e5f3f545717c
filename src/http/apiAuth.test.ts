import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { revokeApiKey } from '../store/apiKeys.js';
import { A, B, assertError, codes, listQueue, startApi } from '../test/apiClient.js';
import { describeEachEngine, newAccount } from '../test/harness.js';

await describeEachEngine('saved-URL API: keys and accounts', (ctx) => {
  let app: FastifyInstance;
  let key: string;
  const list = (path = `${A}?apiKey=${key}`): Promise<{ url: string; title: string }[]> =>
    listQueue(app, path);

  before(async () => {
    ({ app, key } = await startApi(ctx));
  });
  after(() => app.close());

  test('401 for a missing or invalid key on both variants and both methods', async () => {
    const bad = `tdg_${'0'.repeat(76)}`;
    for (const method of ['GET', 'POST'] as const) {
      const payload = method === 'POST' ? { url: 'https://example.com/' } : undefined;
      assertError(await app.inject({ method, url: A, payload }), 401, codes.key_missing);
      assertError(await app.inject({ method, url: B, payload }), 401, codes.key_missing);
      assertError(await app.inject({ method, url: `${A}?apiKey=`, payload }), 401, codes.key_missing);
      assertError(await app.inject({ method, url: `${A}?apiKey=${bad}`, payload }), 401, codes.key_invalid);
      assertError(await app.inject({ method, url: `${B}?api_key=${bad}`, payload }), 401, codes.key_invalid);
      assertError(await app.inject({ method, url: `${A}?apiKey=nonsense`, payload }), 401, codes.key_invalid);
      // Each variant reads only its own parameter name.
      assertError(await app.inject({ method, url: `${A}?api_key=${key}`, payload }), 401, codes.key_missing);
      assertError(await app.inject({ method, url: `${B}?apiKey=${key}`, payload }), 401, codes.key_missing);
    }
    const tampered = key.slice(0, -1) + (key.endsWith('0') ? '1' : '0');
    assertError(await app.inject({ method: 'GET', url: `${A}?apiKey=${tampered}` }), 401, codes.key_invalid);
  });

  test('variant B takes api_key from the body when the query has none; variant A never does', async () => {
    const res = await app.inject({
      method: 'POST',
      url: B,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `api_key=${key}&url=https%3A%2F%2Fexample.com%2Fbody-key`,
    });
    assert.equal(res.body, '{"message":"success"}');
    const json = await app.inject({
      method: 'POST',
      url: B,
      payload: { api_key: key, url: 'https://example.com/json-key' },
    });
    assert.equal(json.body, '{"message":"success"}');
    const aBody = await app.inject({
      method: 'POST',
      url: A,
      payload: { apiKey: key, url: 'https://example.com/a-body' },
    });
    assertError(aBody, 401, codes.key_missing);
    const mismatched = await app.inject({
      method: 'POST',
      url: B,
      headers: { 'content-type': 'application/json' },
      payload: `api_key=${key}&url=https%3A%2F%2Fexample.com%2Fignored`,
    });
    assertError(mismatched, 401, codes.key_missing);
    const urls = (await list()).map((i) => i.url);
    assert.ok(urls.includes('https://example.com/body-key') && urls.includes('https://example.com/json-key'));
    assert.ok(!urls.includes('https://example.com/a-body') && !urls.includes('https://example.com/ignored'));
  });

  test('a revoked key is refused at once', async () => {
    const other = await newAccount(ctx.store());
    const ok = await app.inject({ method: 'GET', url: `${A}?apiKey=${other.apiKey}` });
    assert.equal(ok.statusCode, 200);
    const keyId = (
      await ctx
        .store()
        .db.selectFrom('api_keys')
        .select('id')
        .where('account_id', '=', other.id)
        .executeTakeFirstOrThrow()
    ).id;
    assert.equal(await revokeApiKey(ctx.store().db, keyId), true);
    assertError(
      await app.inject({ method: 'GET', url: `${A}?apiKey=${other.apiKey}` }),
      401,
      codes.key_invalid,
    );
  });

  test('accounts never see each other’s queues', async () => {
    const other = await newAccount(ctx.store());
    await app.inject({
      method: 'POST',
      url: `${B}?api_key=${other.apiKey}`,
      payload: { url: 'https://private.example/' },
    });
    assert.deepEqual(await list(`${B}?api_key=${other.apiKey}`), [
      { url: 'https://private.example/', title: 'https://private.example/' },
    ]);
    assert.ok(!(await list()).some((i) => i.url === 'https://private.example/'));
  });
});
