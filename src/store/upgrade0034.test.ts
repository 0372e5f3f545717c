import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { ENGINES, postgresSkipReason, storeMigratedTo } from '../test/databases.js';
import { accountById } from './accounts.js';
import { migrateToLatest } from './migrate.js';
import { offeredOfDigests, recordOffers, resurfaceCandidates } from './readingListOffers.js';

/**
 * 0034: reading-list items imported before keep their state and are offered from the next digest on
 * (never offered, not kept); digests built before offered nothing; the account's 0031 settings stand.
 */
const pgSkip = await postgresSkipReason();
for (const engine of ENGINES) {
  await test(
    `0034_resurface upgrades reading lists and digests made before [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0032_ereader_email');
      const at = '2026-11-01T00:00:00.000Z';
      await sql`insert into accounts (name, email, timezone, created_at) values ('old', null, 'UTC', ${at})`.execute(
        store.db,
      );
      await sql`insert into digests (id, account_id, local_date, created_at, item_count, remaining, delivery, message_id)
        values (1, 1, '2026-11-01', ${at}, 0, 0, 'sent', '<digest.1.x@tidings.example>')`.execute(store.db);
      for (const [url, saved, state] of [
        ['https://a.example/', '2020-01-01T00:00:00.000Z', 'unread'],
        ['https://b.example/', '2019-01-01T00:00:00.000Z', 'archived'],
        ['https://c.example/', '2021-01-01T00:00:00.000Z', 'unread'],
      ]) {
        await sql`insert into reading_list (account_id, url, url_key, title, state, saved_at, source, created_at, updated_at)
          values (1, ${url}, ${url}, ${url}, ${state}, ${saved}, 'pocket', ${at}, ${at})`.execute(store.db);
      }
      await migrateToLatest(store);
      const account = await accountById(store.db, 1);
      assert.deepEqual([account?.resurface_count, account?.resurface_order], [3, 'oldest']);
      const rows = await store.db
        .selectFrom('reading_list')
        .select(['url', 'kept_at'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => r.kept_at),
        [null, null, null],
      );
      assert.deepEqual((await offeredOfDigests(store.db, [1], [1])).get(1), []);
      const ids = await resurfaceCandidates(store.db, 1, { count: 3, order: 'oldest', seed: 1 });
      const urls = new Map(
        (await store.db.selectFrom('reading_list').select(['id', 'url']).execute()).map((r) => [r.id, r.url]),
      );
      assert.deepEqual(
        ids.map((id) => urls.get(id)),
        ['https://a.example/', 'https://c.example/'],
      );
      await recordOffers(store.db, [{ accountId: 1, digestId: 1, readingIds: ids }], at);
      assert.equal((await offeredOfDigests(store.db, [1], [1])).get(1)?.length, 2);
    },
  );
}
