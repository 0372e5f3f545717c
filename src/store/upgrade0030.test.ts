import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { ENGINES, postgresSkipReason, storeMigratedTo } from '../test/databases.js';
import { migrateToLatest } from './migrate.js';
import { readPageById } from './pageReads.js';

/** 0030 adds pages.direction: a page read before keeps everything and has no declared direction. */
const pgSkip = await postgresSkipReason();
for (const engine of ENGINES) {
  await test(
    `0030_page_direction upgrades pages read before [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0024_notify_queue_moves');
      const at = '2026-11-01T00:00:00.000Z';
      await sql`insert into pages (url, url_key, state, title, language, html, created_at)
        values ('https://old.example/', 'k', 'read', 'Old page', 'ar', '<p>نص</p>', ${at})`.execute(store.db);
      await migrateToLatest(store);
      const page = await readPageById(store.db, 1);
      assert.deepEqual(
        [page?.title, page?.language, page?.html, page?.direction],
        ['Old page', 'ar', '<p>نص</p>', null],
      );
      await store.db.updateTable('pages').set({ direction: 'rtl' }).where('id', '=', 1).execute();
      assert.equal((await readPageById(store.db, 1))?.direction, 'rtl');
    },
  );
}
