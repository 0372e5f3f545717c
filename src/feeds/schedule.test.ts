import assert from 'node:assert/strict';
import { test } from 'node:test';
import { intervalFromPosts, nextFetchAfterError, nextFetchAfterSuccess } from './schedule.js';

const now = new Date('2026-11-22T12:00:00Z');
const hoursAgo = (h: number): Date => new Date(now.getTime() - h * 3_600_000);
const minutesFromNow = (d: Date): number => (d.getTime() - now.getTime()) / 60_000;

test('the interval follows how often a feed posts, clamped to 15 min – 24 h', () => {
  assert.equal(intervalFromPosts([]), 60);
  assert.equal(intervalFromPosts([hoursAgo(1), null]), 60);
  assert.equal(intervalFromPosts([hoursAgo(0), hoursAgo(2), hoursAgo(4), hoursAgo(6)]), 60);
  assert.equal(intervalFromPosts([hoursAgo(0), hoursAgo(0.1), hoursAgo(0.2)]), 15);
  assert.equal(intervalFromPosts([hoursAgo(0), hoursAgo(24 * 7), hoursAgo(24 * 14)]), 24 * 60);
  // Order does not matter, and one odd gap does not dominate (median).
  assert.equal(intervalFromPosts([hoursAgo(4), hoursAgo(0), hoursAgo(300), hoursAgo(2), hoursAgo(6)]), 60);
});

test('publisher hints push the next fetch later, never earlier, and never past 24 h', () => {
  assert.equal(minutesFromNow(nextFetchAfterSuccess(now, 60, {})), 60);
  assert.equal(minutesFromNow(nextFetchAfterSuccess(now, 60, { maxAgeSeconds: 7200 })), 120);
  assert.equal(minutesFromNow(nextFetchAfterSuccess(now, 60, { maxAgeSeconds: 60 })), 60);
  assert.equal(minutesFromNow(nextFetchAfterSuccess(now, 60, { ttlMinutes: 180 })), 180);
  assert.equal(minutesFromNow(nextFetchAfterSuccess(now, 60, { expires: hoursAgo(-3) })), 180);
  assert.equal(minutesFromNow(nextFetchAfterSuccess(now, 60, { expires: hoursAgo(1) })), 60);
  assert.equal(minutesFromNow(nextFetchAfterSuccess(now, 60, { ttlMinutes: 99_999 })), 1440);
  assert.equal(minutesFromNow(nextFetchAfterSuccess(now, 5, {})), 15);
});

test('errors back off exponentially with jitter up to 24 h, and honour Retry-After', () => {
  const mid = (): number => 0.5;
  assert.equal(minutesFromNow(nextFetchAfterError(now, 1, null, mid)), 15);
  assert.equal(minutesFromNow(nextFetchAfterError(now, 2, null, mid)), 30);
  assert.equal(minutesFromNow(nextFetchAfterError(now, 5, null, mid)), 240);
  assert.equal(minutesFromNow(nextFetchAfterError(now, 40, null, mid)), 1440);
  assert.equal(minutesFromNow(nextFetchAfterError(now, 1, null, () => 0)), 12);
  assert.equal(minutesFromNow(nextFetchAfterError(now, 1, null, () => 1)), 18);
  assert.equal(minutesFromNow(nextFetchAfterError(now, 1, 3600, mid)), 60);
  assert.equal(minutesFromNow(nextFetchAfterError(now, 1, 10 * 86_400, mid)), 1440);
  assert.ok(minutesFromNow(nextFetchAfterError(now, 40, null, () => 1)) <= 1440);
});
