import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTemporary, nextAttemptAt } from './retry.js';

const now = new Date('2026-11-23T08:00:00.000Z');
const after = (d: Date): number => d.getTime() - now.getTime();
const MINUTE = 60_000;

test('backoff doubles from about 2 minutes, jittered ±25%, at most 6 hours', () => {
  assert.equal(after(nextAttemptAt(now, 1, null, () => 0.5)), 2 * MINUTE);
  assert.equal(after(nextAttemptAt(now, 3, null, () => 0.5)), 8 * MINUTE);
  assert.equal(after(nextAttemptAt(now, 1, null, () => 0)), 1.5 * MINUTE);
  assert.equal(after(nextAttemptAt(now, 1, null, () => 0.999_999)) < 2.5 * MINUTE, true);
  assert.equal(after(nextAttemptAt(now, 30, null, () => 0.5)), 6 * 60 * MINUTE);
});

test("Retry-After is honoured, but never 'at once' and never beyond a day", () => {
  assert.equal(after(nextAttemptAt(now, 1, 600, () => 0.5)), 10 * MINUTE);
  assert.equal(after(nextAttemptAt(now, 1, 0, () => 0.5)), MINUTE);
  assert.equal(after(nextAttemptAt(now, 1, 10 * 86_400, () => 0.5)), 24 * 60 * MINUTE);
});

test('temporary: 5xx, 429, 408, timeouts, connections, DNS; the rest is permanent', () => {
  for (const status of [500, 502, 503, 504, 429, 408])
    assert.ok(isTemporary({ code: 'http_status', status }));
  for (const status of [400, 401, 403, 404, 451]) assert.ok(!isTemporary({ code: 'http_status', status }));
  for (const code of ['timeout', 'connection', 'dns'] as const) assert.ok(isTemporary({ code }));
  for (const code of ['private_address', 'bad_url', 'tls', 'too_many_redirects', 'decompression'] as const) {
    assert.ok(!isTemporary({ code }));
  }
});
