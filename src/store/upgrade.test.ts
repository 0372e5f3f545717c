import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { buildDueDigests } from '../digest/build.js';
import { accountIdByDigestToken, digestTokenOf } from '../digest/token.js';
import { TestClock, testDigestDeps } from '../test/digestPipeline.js';
import { ENGINES, postgresSkipReason, storeMigratedTo } from '../test/databases.js';
import { accountById } from './accounts.js';
import { migrateToLatest } from './migrate.js';

/**
 * Upgrading a database that has accounts and queued items from before digests (0002): the settings get
 * their defaults, queued items keep their place, and the first digest worker pass schedules the accounts
 * for their next slot instead of firing at once.
 */
const pgSkip = await postgresSkipReason();
for (const engine of ENGINES) {
  await test(
    `0003_digests upgrades a database in use [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0002_feeds');

      const at = '2026-11-01T00:00:00.000Z';
      await sql`insert into accounts (name, email, timezone, created_at) values ('old', 'old@example.org', 'Europe/Berlin', ${at})`.execute(
        store.db,
      );
      await sql`insert into queue_items (account_id, url, url_key, title, source, created_at, updated_at)
      values (1, 'https://old.example/', 'k', 'Old', 'api', ${at}, ${at})`.execute(store.db);

      await migrateToLatest(store);
      const account = await accountById(store.db, 1);
      assert.ok(account !== null);
      assert.deepEqual(
        [
          account.digest_time,
          account.digest_days,
          account.digest_max_items,
          account.digest_skip_empty,
          account.email_enabled,
          account.digest_due_at,
          account.last_digest_date,
        ],
        ['07:00', 'mon,tue,wed,thu,fri,sat,sun', 100, true, true, null, null],
      );
      const item = await store.db.selectFrom('queue_items').selectAll().executeTakeFirstOrThrow();
      assert.deepEqual([item.url, item.summary, item.published_at], ['https://old.example/', null, null]);

      const clock = new TestClock('2026-11-23T10:00:00Z');
      assert.deepEqual(await buildDueDigests(testDigestDeps(store, { now: clock.now })), []);
      assert.equal((await accountById(store.db, 1))?.digest_due_at, '2026-11-24T06:00:00.000Z');
    },
  );
}

/** 0009 gives every account from before tokens its digest token, in the form the token look-up expects. */
for (const engine of ENGINES) {
  await test(
    `0009_digest_token_backfill gives older accounts their token [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0008_digest_item_domain');
      const at = '2026-11-01T00:00:00.000Z';
      await sql`insert into accounts (name, email, timezone, created_at) values ('old', null, 'UTC', ${at})`.execute(
        store.db,
      );
      await migrateToLatest(store);
      const token = await digestTokenOf(store.db, 1);
      assert.ok(token !== null);
      assert.equal(await accountIdByDigestToken(store.db, token), 1);
    },
  );
}
