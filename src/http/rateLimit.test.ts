import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { API_ERRORS as errorCatalog } from './errors.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { InvalidKeyLimiter } from './invalidKeyLimiter.js';

await describeEachEngine('invalid-key rate limit', (ctx) => {
  let app: FastifyInstance;
  let key: string;
  let clock = 1_000_000;

  before(async () => {
    app = testServer(ctx.store(), { limiter: new InvalidKeyLimiter(30, 60_000, 100_000, () => clock) });
    await app.ready();
    key = (await newAccount(ctx.store())).apiKey;
  });
  after(() => app.close());

  const bad = (ip: string, path = '/api/v1/articles?apiKey=wrong') =>
    app.inject({ method: 'GET', url: path, remoteAddress: ip });

  test('30 invalid requests in a minute are 401, the 31st is 429 with Retry-After, JSON body', async () => {
    for (let i = 0; i < 30; i++) assert.equal((await bad('10.0.0.1')).statusCode, 401);
    const limited = await bad('10.0.0.1', '/api'); // missing keys count too, on either variant
    assert.equal(limited.statusCode, 429);
    assert.deepEqual(limited.json(), {
      code: errorCatalog.rate_limited.code,
      message: limited.json<{ message: string }>().message,
    });
    assert.equal(limited.headers['retry-after'], '60');
    assert.equal(limited.headers['access-control-allow-origin'], '*');
  });

  test('a valid key from the same address is never slowed', async () => {
    const get = await app.inject({ method: 'GET', url: `/api?api_key=${key}`, remoteAddress: '10.0.0.1' });
    assert.equal(get.statusCode, 200);
    const post = await app.inject({
      method: 'POST',
      url: `/api/v1/articles?apiKey=${key}`,
      remoteAddress: '10.0.0.1',
      payload: { url: 'https://example.com/' },
    });
    assert.equal(post.statusCode, 200);
  });

  test('other addresses are not affected', async () => {
    assert.equal((await bad('10.0.0.2')).statusCode, 401);
  });

  test('once the minute has passed the address gets 401 again', async () => {
    clock += 30_000;
    const still = await bad('10.0.0.1');
    assert.equal(still.statusCode, 429);
    assert.equal(still.headers['retry-after'], '30');
    clock += 30_000;
    assert.equal((await bad('10.0.0.1')).statusCode, 401);
  });
});

test('the limiter forgets expired windows and stays bounded under a flood of addresses', () => {
  let t = 0;
  const limiter = new InvalidKeyLimiter(2, 1000, 100, () => t);
  for (let i = 0; i < 1000; i++) limiter.recordFailure(`a${i}`);
  assert.equal(limiter.recordFailure('a999'), 0);
  assert.ok(limiter.recordFailure('a999') > 0);
  t = 5000;
  assert.equal(limiter.recordFailure('a999'), 0);
});
