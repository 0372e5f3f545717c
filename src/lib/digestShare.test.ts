import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_PER_DIGEST,
  fewer,
  formatPerDigest,
  more,
  mutedAt,
  parsePerDigest,
  parsePerDigestChoice,
  perDigestColumn,
  perDigestOf,
} from './digestShare.js';

test('the column: null is the default, -1 all, a number itself; and back', () => {
  assert.equal(perDigestOf(null), DEFAULT_PER_DIGEST);
  assert.equal(perDigestOf(-1), 'all');
  assert.equal(perDigestOf(0), 0);
  assert.equal(perDigestOf(12), 12);
  assert.equal(perDigestColumn('default'), null);
  assert.equal(perDigestColumn('all'), -1);
  assert.equal(perDigestColumn(0), 0);
  assert.equal(perDigestColumn(7), 7);
});

test('parsePerDigest takes all or a whole number 0..100, nothing else', () => {
  assert.equal(parsePerDigest('all'), 'all');
  assert.equal(parsePerDigest(' ALL '), 'all');
  assert.equal(parsePerDigest('0'), 0);
  assert.equal(parsePerDigest('3'), 3);
  assert.equal(parsePerDigest('100'), 100);
  for (const bad of ['', '-1', '101', '2.5', '1e2', 'three', 'default', '0x3', '1000']) {
    assert.equal(parsePerDigest(bad), null, bad);
  }
  assert.equal(parsePerDigestChoice('default'), 'default');
  assert.equal(parsePerDigestChoice('5'), 5);
  assert.equal(parsePerDigestChoice('nope'), null);
  assert.equal(formatPerDigest('all'), 'all');
  assert.equal(formatPerDigest(0), '0');
});

test('fewer and more step through 0, 1, 2, 3, 5, 10, all, and stop at the ends', () => {
  const down: string[] = [];
  for (let v: number | 'all' = 'all'; ; v = fewer(v)) {
    down.push(formatPerDigest(v));
    if (v === 0) break;
  }
  assert.deepEqual(down, ['all', '10', '5', '3', '2', '1', '0']);
  assert.equal(fewer(0), 0);
  const up: string[] = [];
  for (let v: number | 'all' = 0; ; v = more(v)) {
    up.push(formatPerDigest(v));
    if (v === 'all') break;
  }
  assert.deepEqual(up, ['0', '1', '2', '3', '5', '10', 'all']);
  assert.equal(more('all'), 'all');
  // Between steps: to the next step in that direction.
  assert.equal(fewer(7), 5);
  assert.equal(more(7), 10);
  assert.equal(fewer(40), 10);
  assert.equal(more(40), 'all');
  assert.equal(fewer(DEFAULT_PER_DIGEST), 2);
  assert.equal(more(DEFAULT_PER_DIGEST), 5);
});

test('a feed is muted only until its time', () => {
  const now = new Date('2026-11-26T12:00:00Z');
  assert.equal(mutedAt(null, now), false);
  assert.equal(mutedAt('2026-11-26T12:00:01.000Z', now), true);
  assert.equal(mutedAt('2026-11-26T12:00:00.000Z', now), false);
});
