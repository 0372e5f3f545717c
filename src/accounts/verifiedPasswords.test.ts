/**
 * Passwords verified a moment ago (accounts/verifiedPasswords.ts, for OPDS's Basic): the same credentials
 * again sign in without scrypt (counted by `hits`, not timed) until `ttlMs` has passed on the injected
 * clock; a changed password, a wrong one, or a disabled account is refused at once, the cache or not.
 * Both engines, through signInWithPassword on a real database.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { operatorSetPassword, signInWithPassword } from './passwords.js';
import { VerifiedPasswords } from './verifiedPasswords.js';

const FIRST = 'the first e-reader password';
const SECOND = 'the second e-reader password';
const TTL_MS = 5 * 60_000;

await describeEachEngine('passwords verified a moment ago', (ctx) => {
  const setUp = async () => {
    const store = ctx.store();
    const { id } = await newAccount(store);
    const { name } = await store.db
      .selectFrom('accounts')
      .select('name')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await operatorSetPassword(store, id, FIRST, new Date());
    let clock = Date.parse('2026-11-28T12:00:00.000Z');
    const verified = new VerifiedPasswords(() => clock, TTL_MS);
    const signIn = async (password: string, identifier = name) => {
      const r = await signInWithPassword(store, identifier, password, new Date(clock), undefined, verified);
      return r !== null && 'accountId' in r ? r.accountId : null;
    };
    return { id, name, verified, signIn, advance: (ms: number) => (clock += ms) };
  };

  test('the same credentials again skip scrypt until the time is up, then are verified again', async () => {
    const { id, verified, signIn, advance } = await setUp();
    assert.equal(await signIn(FIRST), id);
    assert.equal(verified.hits, 0, 'the first is verified by scrypt');
    assert.equal(await signIn(FIRST), id);
    assert.equal(await signIn(FIRST), id);
    assert.equal(verified.hits, 2);
    advance(TTL_MS - 1);
    assert.equal(await signIn(FIRST), id);
    assert.equal(verified.hits, 3, 'a hit does not extend the time');
    advance(1);
    assert.equal(await signIn(FIRST), id);
    assert.equal(verified.hits, 3, 'verified by scrypt again once the time is up');
    assert.equal(await signIn(FIRST), id);
    assert.equal(verified.hits, 4);
  });

  test('a changed password: the old one is refused at once, the new one verified; a wrong one never kept', async () => {
    const { id, verified, signIn } = await setUp();
    assert.equal(await signIn(FIRST), id);
    assert.equal(await signIn(FIRST), id);
    assert.equal(verified.hits, 1);
    await operatorSetPassword(ctx.store(), id, SECOND, new Date());
    assert.equal(await signIn(FIRST), null, 'the old password, right after the change');
    assert.equal(await signIn(SECOND), id);
    assert.equal(await signIn(`${SECOND}!`), null);
    assert.equal(await signIn(`${SECOND}!`), null);
    assert.equal(await signIn(SECOND), id);
    assert.equal(verified.hits, 2, 'only the new password, verified once, was remembered');
    // The same password set again is a new hash (a new salt): verified again, not recalled.
    await operatorSetPassword(ctx.store(), id, SECOND, new Date());
    assert.equal(await signIn(SECOND), id);
    assert.equal(verified.hits, 2);
  });

  test('a disabled account is refused at once though its password was just verified', async () => {
    const { id, verified, signIn } = await setUp();
    assert.equal(await signIn(FIRST), id);
    await ctx
      .store()
      .db.updateTable('accounts')
      .set({ disabled_at: new Date().toISOString() })
      .where('id', '=', id)
      .execute();
    assert.equal(await signIn(FIRST), null);
    assert.equal(verified.hits, 0);
  });
});
