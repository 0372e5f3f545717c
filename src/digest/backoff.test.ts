import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FIRST_RETRY_MS, MAX_RETRY_MS, nextAttemptDelay } from './backoff.js';

const minutes = (ms: number) => ms / 60_000;
const bottom = () => 0;
const half = () => 0.5;
const almostOne = () => 0.999999;
const top = () => 1;
const outOfRange = () => 7;

test('nextAttemptDelay doubles from a minute, jittered within the upper half of each step', () => {
  assert.equal(nextAttemptDelay(1, bottom), FIRST_RETRY_MS / 2);
  assert.equal(nextAttemptDelay(1, almostOne), Math.round(FIRST_RETRY_MS * (0.5 + 0.5 * 0.999999)));
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((n) => minutes(nextAttemptDelay(n, half))),
    [0.75, 1.5, 3, 6, 12, 24],
  );
  for (let attempt = 1; attempt < 40; attempt++) {
    for (const r of [0, 0.25, 0.5, 0.9999]) {
      const next = nextAttemptDelay(attempt + 1, () => r);
      assert.ok(next >= nextAttemptDelay(attempt, () => r), `attempt ${attempt}, r ${r}`);
    }
  }
});

test('nextAttemptDelay never exceeds 24 h and survives odd input', () => {
  assert.equal(minutes(nextAttemptDelay(11, top)), 1024); // 17 h 4 min
  assert.equal(nextAttemptDelay(12, top), MAX_RETRY_MS); // 34 h, capped
  assert.equal(nextAttemptDelay(1_000_000, top), MAX_RETRY_MS);
  assert.equal(nextAttemptDelay(1_000_000, bottom), MAX_RETRY_MS / 2);
  assert.equal(nextAttemptDelay(Number.POSITIVE_INFINITY, bottom), MAX_RETRY_MS / 2);
  assert.equal(nextAttemptDelay(Number.NaN, bottom), FIRST_RETRY_MS / 2);
  assert.equal(nextAttemptDelay(0, bottom), FIRST_RETRY_MS / 2);
  assert.equal(nextAttemptDelay(-3, bottom), FIRST_RETRY_MS / 2);
  assert.equal(nextAttemptDelay(2, outOfRange), 2 * FIRST_RETRY_MS); // a random() out of range is clamped
  for (let i = 0; i < 1000; i++) {
    const d = nextAttemptDelay(1 + (i % 30));
    assert.ok(d > 0 && d <= MAX_RETRY_MS);
  }
});
