import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CURRENT_PARAMS,
  PASSWORD_MAX_BYTES,
  dummyHash,
  hashPassword,
  needsRehash,
  passwordRefusal,
  passwordWords,
  verifyPassword,
} from './passwordHash.js';

test('a hash is scrypt with its parameters and a random salt; it verifies the password and nothing else', async () => {
  const a = await hashPassword('correct horse battery');
  const b = await hashPassword('correct horse battery');
  assert.match(a, /^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.notEqual(a, b, 'a fresh salt each time');
  assert.equal(await verifyPassword('correct horse battery', a), true);
  assert.equal(await verifyPassword('correct horse battery', b), true);
  assert.equal(await verifyPassword('correct horse batterY', a), false);
  assert.equal(await verifyPassword('', a), false);
  assert.equal(needsRehash(a), false);
});

test('the same password typed in another Unicode form (NFC, NFD) verifies', async () => {
  const composed = 'Crème brûlée au café';
  const hash = await hashPassword(composed.normalize('NFD'));
  assert.equal(await verifyPassword(composed.normalize('NFC'), hash), true);
});

test('a hash made with other parameters still verifies, and asks to be made again', async () => {
  const old = await hashPassword('an older password', { log2N: 10, r: 8, p: 1 });
  assert.match(old, /^scrypt\$10\$8\$1\$/);
  assert.equal(await verifyPassword('an older password', old), true);
  assert.equal(needsRehash(old), true);
  assert.equal(CURRENT_PARAMS.log2N, 15);
});

test('a malformed or hostile stored hash never verifies (and never runs with huge parameters)', async () => {
  const good = await hashPassword('whatever it is');
  const parts = good.split('$');
  for (const stored of [
    '',
    'plain text',
    'argon2id$v=19$m=65536$abc$def',
    ['scrypt', '30', ...parts.slice(2)].join('$'),
    ['scrypt', '15', '99', ...parts.slice(3)].join('$'),
    ['scrypt', '15', '8', '1', parts[4], 'short'].join('$'),
    good.slice(0, -4),
  ]) {
    assert.equal(await verifyPassword('whatever it is', stored), false, stored);
    assert.equal(needsRehash(stored), true);
  }
});

/** The refusal in English words, as the CLI and the API give it; null when the password is taken. */
const passwordProblem = (password: string): string | null => {
  const facts = passwordRefusal(password);
  return facts === null ? null : passwordWords(facts);
};

test('rules: at least 10 characters, at most 1,024 bytes', () => {
  assert.match(passwordProblem('short') ?? '', /at least 10 characters/);
  assert.match(passwordProblem('ééééé') ?? '', /at least 10/); // characters, not bytes
  assert.equal(passwordProblem('ten chars!'), null);
  assert.equal(passwordProblem('x'.repeat(PASSWORD_MAX_BYTES)), null);
  assert.match(passwordProblem('x'.repeat(PASSWORD_MAX_BYTES + 1)) ?? '', /at most 1,024 bytes/);
  assert.match(passwordProblem('é'.repeat(513)) ?? '', /at most 1,024 bytes/);
});

test('the dummy hash is made once and matches no guess', async () => {
  const d = await dummyHash();
  assert.equal(await dummyHash(), d);
  assert.equal(await verifyPassword('', d), false);
  assert.equal(await verifyPassword('password123', d), false);
});
