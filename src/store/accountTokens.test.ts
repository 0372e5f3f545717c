/**
 * The one insert of both token tables (accountTokens.ts): each keeps the hashes whose owner is real (the
 * account; the account's own digest), forgets the same accounts' tokens made before the cut, and leaves
 * other accounts' alone. Both engines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { insertLargeDigest } from '../test/bigDigest.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { digestOfActionHash, insertDigestActionTokens } from './digestActionTokens.js';
import { accountIdByUnsubscribeHash, insertUnsubscribeTokens } from './unsubscribeTokens.js';

const OLD = { createdAt: '2026-11-01T00:00:00.000Z', pruneBefore: '2026-10-01T00:00:00.000Z' };
const NEW = { createdAt: '2026-11-22T00:00:00.000Z', pruneBefore: '2026-11-15T00:00:00.000Z' };

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
    assert.equal(await accountIdByUnsubscribeHash(db, `ua-old-${a.id}`), null, 'pruned');
    assert.equal(await accountIdByUnsubscribeHash(db, `ua-new-${a.id}`), a.id);
    assert.equal(await accountIdByUnsubscribeHash(db, `ub-old-${b.id}`), b.id, 'another account kept');
    assert.equal(await accountIdByUnsubscribeHash(db, 'nobody'), null);
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
    assert.equal(await digestOfActionHash(store.db, `da-old-${a.id}`), null, 'pruned');
    assert.deepEqual(await digestOfActionHash(store.db, `da-new-${a.id}`), { accountId: a.id, digestId: da });
    assert.deepEqual(await digestOfActionHash(store.db, `db-old-${b.id}`), {
      accountId: b.id,
      digestId: db2,
    });
    assert.equal(await digestOfActionHash(store.db, `not-hers-${a.id}`), null);
  });
});
