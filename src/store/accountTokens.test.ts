/**
 * The one insert of both token tables (accountTokens.ts): each keeps the hashes whose owner is real (the
 * account; the account's own digest), forgets the same accounts' tokens made before the cut, and leaves
 * other accounts' alone. Both engines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { insertLargeDigest } from '../test/bigDigest.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { deleteTokensMadeBefore } from './accountTokens.js';
import { digestOfActionHash, insertDigestActionTokens } from './digestActionTokens.js';
import { accountIdByUnsubscribeHash, insertUnsubscribeTokens } from './unsubscribeTokens.js';

const OLD = { createdAt: '2026-11-01T00:00:00.000Z', pruneBefore: '2026-10-01T00:00:00.000Z' };
const NEW = { createdAt: '2026-11-22T00:00:00.000Z', pruneBefore: '2026-11-15T00:00:00.000Z' };
/** A look-up's cut that every token of these tests is younger than. */
const ANY = '2026-01-01T00:00:00.000Z';

await describeEachEngine('token tables', (ctx) => {
  test('unsubscribe tokens: only real accounts; older ones of the same accounts are forgotten', async () => {
    const db = ctx.store().db;
    const [a, b] = [await newAccount(ctx.store()), await newAccount(ctx.store())];
    const first = await insertUnsubscribeTokens(
      db,
      [
        { accountId: a.id, tokenHash: `ua-old-${a.id}` },
        { accountId: b.id, tokenHash: `ub-old-${b.id}` },
        { accountId: 999_999, tokenHash: 'nobody' },
      ],
      OLD,
    );
    assert.deepEqual([...first].sort(), [`ua-old-${a.id}`, `ub-old-${b.id}`].sort());
    const second = await insertUnsubscribeTokens(db, [{ accountId: a.id, tokenHash: `ua-new-${a.id}` }], NEW);
    assert.deepEqual([...second], [`ua-new-${a.id}`]);
    assert.equal(await accountIdByUnsubscribeHash(db, `ua-old-${a.id}`, ANY), null, 'pruned');
    assert.equal(await accountIdByUnsubscribeHash(db, `ua-new-${a.id}`, ANY), a.id);
    assert.equal(await accountIdByUnsubscribeHash(db, `ub-old-${b.id}`, ANY), b.id, 'another account kept');
    assert.equal(await accountIdByUnsubscribeHash(db, 'nobody', ANY), null);
    assert.deepEqual(await insertUnsubscribeTokens(db, [], NEW), new Set());
  });

  test('action tokens: only the account’s own digest; older ones of the same accounts are forgotten', async () => {
    const store = ctx.store();
    const [a, b] = [await newAccount(store), await newAccount(store)];
    const da = await insertLargeDigest(store, a.id, 2);
    const db2 = await insertLargeDigest(store, b.id, 2);
    const first = await insertDigestActionTokens(
      store.db,
      [
        { accountId: a.id, digestId: da, tokenHash: `da-old-${a.id}` },
        { accountId: a.id, digestId: db2, tokenHash: `not-hers-${a.id}` },
        { accountId: b.id, digestId: db2, tokenHash: `db-old-${b.id}` },
      ],
      OLD,
    );
    assert.deepEqual([...first].sort(), [`da-old-${a.id}`, `db-old-${b.id}`].sort());
    const second = await insertDigestActionTokens(
      store.db,
      [{ accountId: a.id, digestId: da, tokenHash: `da-new-${a.id}` }],
      NEW,
    );
    assert.deepEqual([...second], [`da-new-${a.id}`]);
    assert.equal(await digestOfActionHash(store.db, `da-old-${a.id}`, ANY), null, 'pruned');
    assert.deepEqual(await digestOfActionHash(store.db, `da-new-${a.id}`, ANY), {
      accountId: a.id,
      digestId: da,
    });
    assert.deepEqual(await digestOfActionHash(store.db, `db-old-${b.id}`, ANY), {
      accountId: b.id,
      digestId: db2,
    });
    assert.equal(await digestOfActionHash(store.db, `not-hers-${a.id}`, ANY), null);
  });

  test('a look-up refuses a token made before its cut; the prune forgets every account’s, a batch at a time', async () => {
    const store = ctx.store();
    const [a, b] = [await newAccount(store), await newAccount(store)];
    const digest = await insertLargeDigest(store, a.id, 1);
    const at = (day: number) => `2025-03-${String(day).padStart(2, '0')}T12:00:00.000Z`;
    // Three old tokens of each account (days 1-3) and a young one (day 20), in both tables.
    for (const day of [1, 2, 3, 20]) {
      const t = { createdAt: at(day), pruneBefore: '2025-01-01T00:00:00.000Z' };
      await insertUnsubscribeTokens(
        store.db,
        [a, b].map((x) => ({ accountId: x.id, tokenHash: `age-u${day}-${x.id}` })),
        t,
      );
      await insertDigestActionTokens(
        store.db,
        [{ accountId: a.id, digestId: digest, tokenHash: `age-d${day}-${a.id}` }],
        t,
      );
    }
    const cut = at(10);
    assert.equal(
      await accountIdByUnsubscribeHash(store.db, `age-u3-${a.id}`, cut),
      null,
      'older than the cut',
    );
    assert.equal(await accountIdByUnsubscribeHash(store.db, `age-u20-${a.id}`, cut), a.id);
    assert.equal(
      await accountIdByUnsubscribeHash(store.db, `age-u20-${a.id}`, at(20)),
      a.id,
      'made at the cut',
    );
    assert.equal(await digestOfActionHash(store.db, `age-d1-${a.id}`, cut), null);
    assert.deepEqual(await digestOfActionHash(store.db, `age-d20-${a.id}`, cut), {
      accountId: a.id,
      digestId: digest,
    });

    const left = async (table: 'unsubscribe_tokens' | 'digest_action_tokens') =>
      (await store.db.selectFrom(table).select('token_hash').where('token_hash', 'like', 'age-%').execute())
        .map((r) => r.token_hash)
        .sort();
    // Six old unsubscribe tokens (two accounts, neither getting another email): 4, then 2, then none.
    assert.equal(await deleteTokensMadeBefore(store.db, 'unsubscribe_tokens', cut, 4), 4);
    assert.deepEqual(
      await left('unsubscribe_tokens'),
      [`age-u20-${a.id}`, `age-u20-${b.id}`, `age-u3-${a.id}`, `age-u3-${b.id}`].sort(),
      'the oldest went first',
    );
    assert.equal(await deleteTokensMadeBefore(store.db, 'unsubscribe_tokens', cut, 4), 2);
    assert.equal(await deleteTokensMadeBefore(store.db, 'unsubscribe_tokens', cut, 4), 0);
    assert.deepEqual(await left('unsubscribe_tokens'), [`age-u20-${a.id}`, `age-u20-${b.id}`].sort());
    assert.equal(await deleteTokensMadeBefore(store.db, 'digest_action_tokens', cut, 1000), 3);
    assert.deepEqual(await left('digest_action_tokens'), [`age-d20-${a.id}`]);
  });
});
