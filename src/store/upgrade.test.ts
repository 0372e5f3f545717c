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

/** 0011 counts, for digests built before it, the saved items and the feeds (by id, else by the kept name). */
for (const engine of ENGINES) {
  await test(
    `0011_digest_tallies counts the digests built before it [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0010_pages');
      const at = '2026-11-01T00:00:00.000Z';
      await sql`insert into accounts (name, email, timezone, created_at) values ('old', null, 'UTC', ${at})`.execute(
        store.db,
      );
      await sql`insert into feeds (url, title, next_fetch_at, created_at)
        values ('https://a.example/feed', 'A', ${at}, ${at}), ('https://b.example/feed', 'B', ${at}, ${at})`.execute(
        store.db,
      );
      for (const [id, day] of [
        [1, '2026-11-01'],
        [2, '2026-11-02'],
      ] as const) {
        await sql`insert into digests (id, account_id, local_date, created_at, item_count, remaining, delivery, message_id)
          values (${id}, 1, ${day}, ${at}, 0, 0, 'sent', ${`m${id}`})`.execute(store.db);
      }
      // Digest 1: two saved items, three from feed 1, one from feed 2, two from a removed feed (its kept name).
      const rows: [string, number | null, string | null][] = [
        ['api', null, null],
        ['feed', 1, 'A'],
        ['feed', 1, 'A'],
        ['api', null, null],
        ['feed', 2, 'B'],
        ['feed', 1, 'A'],
        ['feed', null, 'Gone'],
        ['feed', null, 'Gone'],
      ];
      for (const [position, [source, feedId, feedTitle]] of rows.entries()) {
        await sql`insert into digest_items (digest_id, position, url, title, source, feed_id, feed_title, queued_at)
          values (1, ${position}, ${`https://x.example/${position}`}, 'T', ${source}, ${feedId}, ${feedTitle}, ${at})`.execute(
          store.db,
        );
      }
      await migrateToLatest(store);
      const tallies = await store.db
        .selectFrom('digests')
        .select(['id', 'saved_count', 'feed_count'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        tallies.map((d) => [d.id, d.saved_count, d.feed_count]),
        [
          [1, 2, 3],
          [2, 0, 0],
        ],
      );
    },
  );
}
