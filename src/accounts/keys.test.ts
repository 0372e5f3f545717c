import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateKey, hashKey, keyMatches, keyPrefix } from './keys.js';

test('keys carry at least 256 random bits, and only their hash is kept', () => {
  const k = generateKey();
  assert.match(k.key, /^tdg_[0-9a-f]{76}$/);
  assert.equal(k.key.length - 4 - 12, 64); // 64 hex = 256 bits beyond the public prefix
  assert.equal(keyPrefix(k.key), k.prefix);
  assert.equal(k.hash, hashKey(k.key));
  assert.ok(!k.hash.includes(k.key.slice(16)));
  assert.notEqual(generateKey().key, k.key);
});

test('keyMatches compares with the stored hash; anything else is refused', () => {
  const k = generateKey();
  assert.equal(keyMatches(k.key, k.hash), true);
  assert.equal(keyMatches(`${k.key.slice(0, -1)}x`, k.hash), false);
  assert.equal(keyMatches(k.key, 'abcd'), false);
  assert.equal(keyPrefix('tdg_short'), null);
  assert.equal(keyPrefix(`TDG_${k.key.slice(4)}`), null);
});

test('keyMatches remembers the last key that matched, for that stored hash only', () => {
  const k = generateKey();
  const other = generateKey();
  assert.equal(keyMatches(k.key, k.hash), true);
  assert.equal(keyMatches(k.key, k.hash), true, 'the same key again');
  const near = `${k.key.slice(0, -1)}${k.key.endsWith('0') ? '1' : '0'}`;
  assert.equal(keyMatches(near, k.hash), false, 'one character off, after a match');
  assert.equal(keyMatches(k.key, other.hash), false, 'the remembered key against another hash');
  assert.equal(keyMatches(other.key, k.hash), false, 'another key against the remembered hash');
  assert.equal(keyMatches(other.key, other.hash), true);
  assert.equal(keyMatches(k.key, k.hash), true, 'the first key again, hashed');
});
