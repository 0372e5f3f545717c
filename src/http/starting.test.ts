import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { API_ERRORS } from './errorCodes.js';
import { listenStarting } from './starting.js';

/** While starting, at most `maxHeld` requests wait; the next is answered 503 with Retry-After at once. */
test('a flood while starting is held up to the cap, the rest answered 503 at once', async () => {
  const starting = await listenStarting(0, '127.0.0.1', 2);
  const { port } = starting.server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  try {
    const held = [fetch(`${base}/api/v1/articles`), fetch(`${base}/api/v1/articles`)];
    // Both are held before the third arrives: /healthz is answered in order on its own connection.
    for (let i = 0; i < 50; i++) await (await fetch(`${base}/healthz`)).text();
    const third = await fetch(`${base}/api/v1/articles`);
    assert.equal(third.status, API_ERRORS.unavailable.status);
    assert.equal(third.headers.get('retry-after'), '5');
    assert.equal(((await third.json()) as { code: number }).code, API_ERRORS.unavailable.code);
    starting.factory((_req, res) => res.end('ready'), {});
    starting.ready();
    assert.deepEqual(await Promise.all(held.map(async (r) => (await r).text())), ['ready', 'ready']);
  } finally {
    starting.abort();
  }
});
