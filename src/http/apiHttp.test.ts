import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { A, B, assertError, codes, listQueue, startApi } from '../test/apiClient.js';
import { describeEachEngine } from '../test/harness.js';

await describeEachEngine('saved-URL API: methods, paths, bodies, CORS', (ctx) => {
  let app: FastifyInstance;
  let key: string;
  const a = (): string => `${A}?apiKey=${key}`;
  const b = (): string => `${B}?api_key=${key}`;
  const list = (path = a()): Promise<{ url: string; title: string }[]> => listQueue(app, path);

  before(async () => {
    ({ app, key } = await startApi(ctx));
  });
  after(() => app.close());

  test('405 with Allow for other methods; 404 for unknown paths; all JSON', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH'] as const) {
      for (const path of [a(), b(), `${A}/`]) {
        const res = await app.inject({ method, url: path, payload: { url: 'https://example.com/' } });
        assertError(res, 405, codes.method_not_allowed);
        assert.equal(res.headers.allow, 'GET, HEAD, POST, OPTIONS');
      }
    }
    assertError(await app.inject({ method: 'GET', url: '/api/v2/articles' }), 404, codes.not_found);
    assertError(await app.inject({ method: 'POST', url: '/apis' }), 404, codes.not_found);
    // (/ is the web app's; an unknown path without Accept: text/html still gets the API's JSON 404)
    assertError(await app.inject({ method: 'GET', url: '/nothing-here' }), 404, codes.not_found);
  });

  test('trailing slashes and HEAD work like the plain path and GET', async () => {
    assert.equal((await app.inject({ method: 'GET', url: `${A}/?apiKey=${key}` })).statusCode, 200);
    const head = await app.inject({ method: 'HEAD', url: b() });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  });

  test('a body over 64 KiB is 413 and saves nothing', async () => {
    const res = await app.inject({
      method: 'POST',
      url: a(),
      payload: { url: 'https://example.com/huge', title: 'x'.repeat(70 * 1024) },
    });
    assertError(res, 413, codes.body_too_large);
    assert.ok(!(await list()).some((i) => i.url === 'https://example.com/huge'));
  });

  test('CORS: preflight is answered and every API response allows any origin without credentials', async () => {
    const pre = await app.inject({
      method: 'OPTIONS',
      url: A,
      headers: {
        origin: 'https://news.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.equal(pre.statusCode, 204);
    assert.equal(pre.headers['access-control-allow-origin'], '*');
    assert.match(String(pre.headers['access-control-allow-methods']), /POST/);
    assert.match(String(pre.headers['access-control-allow-headers']), /content-type/i);
    assert.equal(pre.headers['access-control-allow-credentials'], undefined);
    const err = await app.inject({ method: 'GET', url: B, headers: { origin: 'https://news.example' } });
    assert.equal(err.headers['access-control-allow-origin'], '*');
    const ok = await app.inject({ method: 'GET', url: b(), headers: { origin: 'https://news.example' } });
    assert.equal(ok.headers['access-control-allow-origin'], '*');
  });

  test('/openapi.json describes both variants', async () => {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json<{ openapi: string; paths: Record<string, unknown> }>();
    assert.match(doc.openapi, /^3\./);
    assert.ok(A in doc.paths && B in doc.paths);
  });
});
