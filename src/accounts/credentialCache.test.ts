import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { ChangeFeed } from '../store/changeFeed.js';
import { type Store, openStore } from '../store/db.js';
import { credentialByPrefix } from '../store/apiKeys.js';
import { migrateToLatest } from '../store/migrate.js';
import { createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { newAccount } from '../test/harness.js';
import { addSavedUrl } from '../queue/add.js';
import { disableAccount } from './admin.js';
import { listKeys, revokeAnyKey } from './apiKeys.js';
import { authenticate } from './authorize.js';
import { CredentialCache } from './credentialCache.js';
import { keyPrefix } from './keys.js';

/** Two instances (stores) on a fresh, migrated PostgreSQL database, and a cache on the second's feed. */
async function twoInstances(t: TestContext): Promise<{ one: Store; two: Store; feed: ChangeFeed }> {
  const db = await createTestDatabase('postgres');
  const one = openStore(db.url);
  const two = openStore(db.url);
  t.after(async () => {
    await one.close();
    await two.close();
    await db.drop();
  });
  await migrateToLatest(one);
  assert.ok(two.changes !== null);
  return { one, two, feed: two.changes };
}

test(
  'a credential read before a notice about it is not kept; one read after is (PostgreSQL)',
  { skip: await postgresSkipReason() },
  async (t) => {
    const { one, two, feed } = await twoInstances(t);
    const cache = new CredentialCache(feed);
    await feed.whenSynced(); // listening

    const account = await newAccount(one);
    const prefix = keyPrefix(account.apiKey);
    assert.ok(prefix !== null);
    const [key] = await listKeys(one, account.id);
    assert.ok(key !== undefined);

    const mark = cache.mark();
    const before = await credentialByPrefix(two.db, prefix);
    assert.ok(before !== null);
    assert.ok((await revokeAnyKey(one, key.id))?.revoked); // committed and notified while "reading"
    await feed.whenSynced();
    cache.put(prefix, before, mark);
    assert.equal(cache.get(prefix), undefined, 'a credential the revocation overlapped was kept');

    const other = await newAccount(one);
    const otherPrefix = keyPrefix(other.apiKey);
    assert.ok(otherPrefix !== null);
    const fresh = cache.mark();
    const read = await credentialByPrefix(two.db, otherPrefix);
    assert.ok(read !== null);
    cache.put(otherPrefix, read, fresh);
    await feed.whenSynced();
    assert.deepEqual(cache.get(otherPrefix), read);
  },
);

test(
  'DATABASE_LISTEN=false (listen: false): nothing cached, every check reads the database (PostgreSQL)',
  { skip: await postgresSkipReason() },
  async (t) => {
    const db = await createTestDatabase('postgres');
    const one = openStore(db.url);
    const two = openStore(db.url, { listen: false });
    t.after(async () => {
      await one.close();
      await two.close();
      await db.drop();
    });
    await migrateToLatest(one);
    assert.equal(two.changes, null);
    const account = await newAccount(one);
    const [key] = await listKeys(one, account.id);
    assert.ok(key !== undefined);
    assert.equal((await authenticate(two, account.apiKey))?.accountId, account.id);
    assert.ok((await revokeAnyKey(one, key.id))?.revoked);
    assert.equal(await authenticate(two, account.apiKey), null); // at once, no notice needed
  },
);

test(
  'a queue that moved forgets only the version; an account disabled forgets its keys (PostgreSQL)',
  { skip: await postgresSkipReason() },
  async (t) => {
    const { one, two, feed } = await twoInstances(t);
    await newAccount(one); // the administrator, who may not be disabled
    const cache = new CredentialCache(feed);
    await feed.whenSynced();
    const account = await newAccount(one);
    const prefix = keyPrefix(account.apiKey);
    assert.ok(prefix !== null);
    const read = await credentialByPrefix(two.db, prefix);
    assert.ok(read !== null);
    cache.put(prefix, read, cache.mark());
    await feed.whenSynced();
    assert.deepEqual(cache.get(prefix), read);

    await addSavedUrl(
      one,
      account.id,
      { url: 'https://e.com/moved', title: undefined, source: 'api' },
      { limit: 10 },
    );
    await feed.whenSynced();
    assert.equal(cache.get(prefix), undefined, 'the queue moved: its version is read again');
    const { queueVersion, ...key } = read;
    assert.deepEqual(cache.key(prefix), key, 'the key stays');
    assert.ok(queueVersion >= 0);

    await disableAccount(one, account.id);
    await feed.whenSynced();
    assert.equal(cache.key(prefix), undefined, 'the account was disabled: its keys are read again');
  },
);
