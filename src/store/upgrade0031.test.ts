import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { operatorAccount } from '../accounts/authorize.js';
import { searchAccount } from '../accounts/search.js';
import { importReadingList } from '../imports/importLinks.js';
import { ENGINES, postgresSkipReason, storeMigratedTo } from '../test/databases.js';
import { migrateToLatest } from './migrate.js';

/**
 * 0031 on a database as the previous release left it (every migration up to 0030 run): the queue's search
 * keeps working, an account made before gets the resurfacing defaults, and its reading list is searchable
 * beside its queue. (0031, not 0027: Kysely refuses a database that ran a migration named after a new one.)
 */
const pgSkip = await postgresSkipReason();
const BOOKMARKS = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<DL><p>
<DT><A HREF="https://herons.example/wading" ADD_DATE="1600000000">How herons wade</A>
</DL><p>`;

for (const engine of ENGINES) {
  await test(
    `0031_reading_list upgrades a database migrated to 0030 [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0030_page_direction');
      const at = '2026-11-01T00:00:00.000Z';
      await sql`insert into accounts (name, email, timezone, created_at) values ('old', null, 'UTC', ${at})`.execute(
        store.db,
      );
      await sql`insert into queue_items (account_id, url, url_key, title, source, created_at, updated_at)
        values (1, 'https://herons.example/nesting', 'k', 'Where herons nest', 'api', ${at}, ${at})`.execute(
        store.db,
      );

      await migrateToLatest(store);
      const row = await store.db
        .selectFrom('accounts')
        .select(['resurface_count', 'resurface_order'])
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.resurface_count, row.resurface_order], [3, 'oldest']);

      const account = await operatorAccount(store, 1);
      const counts = await importReadingList(store, account, new TextEncoder().encode(BOOKMARKS));
      assert.equal(counts.imported, 1);
      const hits = await searchAccount(store, account, 'herons');
      assert.deepEqual(hits.hits.map((h) => [h.kind, h.url]).sort(), [
        ['queue', 'https://herons.example/nesting'],
        ['reading', 'https://herons.example/wading'],
      ]);
    },
  );
}
