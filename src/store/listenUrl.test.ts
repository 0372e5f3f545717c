import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { openStore } from './db.js';
import { migrateToLatest } from './migrate.js';

/**
 * The cache's listener connects to DATABASE_DIRECT_URL when one is given (behind PgBouncer in transaction
 * mode, LISTEN needs PostgreSQL itself), and like the pool's connections otherwise.
 */
const pgSkip = await postgresSkipReason();

await test('the listener connects to listenUrl, not to the pool’s address', { skip: pgSkip }, async (t) => {
  const database = await createTestDatabase('postgres');
  t.after(() => database.drop());
  const plain = openStore(database.url);
  t.after(() => plain.close());
  await migrateToLatest(plain);
  // Nothing listens on port 1: a listener sent there never becomes live, while the pool works.
  const unreachable = openStore(database.url, {
    listenUrl: 'postgres://postgres@127.0.0.1:1/nowhere',
    changeFeed: { backoffMs: { first: 50, max: 50 } },
  });
  t.after(() => unreachable.close());
  const direct = openStore(database.url, { listenUrl: database.url });
  t.after(() => direct.close());

  await Promise.all([plain.changes?.whenSynced(), direct.changes?.whenSynced()]);
  assert.equal(plain.changes?.listening, true);
  assert.equal(direct.changes?.listening, true);

  const feed = unreachable.changes;
  assert.ok(feed !== null);
  assert.equal(feed.trusted(), false);
  await sleep(500);
  assert.equal(feed.listening, false);
  assert.equal(feed.trusted(), false);
  const rows = await unreachable.db.selectFrom('accounts').select('id').execute();
  assert.deepEqual(rows, []);
});
