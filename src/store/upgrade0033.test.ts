import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { ENGINES, postgresSkipReason, storeMigratedTo } from '../test/databases.js';
import { migrateToLatest } from './migrate.js';
import { claimDuePages, nextPageDueAt } from './pages.js';
import { claimPacedPage, linkReadingItems } from './readingListPages.js';

/**
 * 0033: pages made before are the queue reader's (paced 0), still claimed by it; reading-list items
 * imported before are linked to their page once upgraded, a new page paced.
 */
const pgSkip = await postgresSkipReason();
for (const engine of ENGINES) {
  await test(
    `0033_reading_list_pages upgrades pages and reading-list items made before [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0032_ereader_email');
      const at = '2026-11-01T00:00:00.000Z';
      await sql`insert into accounts (name, email, timezone, created_at) values ('old', 'old@example.org', 'UTC', ${at})`.execute(
        store.db,
      );
      await sql`insert into pages (url, url_key, next_attempt_at, created_at)
        values ('https://queue.example/a', 'https://queue.example/a', ${at}, ${at})`.execute(store.db);
      await sql`insert into reading_list (account_id, url, url_key, title, saved_at, source, created_at, updated_at)
        values (1, 'https://list.example/b', 'https://list.example/b', 'B', ${at}, 'pocket', ${at}, ${at})`.execute(
        store.db,
      );
      await migrateToLatest(store);

      const old = await store.db.selectFrom('pages').selectAll().executeTakeFirstOrThrow();
      assert.deepEqual([old.paced, old.host], [0, null]);
      assert.equal(await nextPageDueAt(store.db), at);
      const lease = { now: '2026-12-01T00:00:00.000Z', leaseUntil: '2026-12-01T00:05:00.000Z' };
      assert.equal(await linkReadingItems(store.db, { now: at, limit: 10 }), 1);
      const claimed = await claimDuePages(store.db, engine, { owner: 'q', limit: 10, ...lease });
      assert.deepEqual(
        claimed.map((p) => p.url),
        ['https://queue.example/a'],
        'the old page is the queue reader’s, the new one is not',
      );
      const paced = await claimPacedPage(store.db, { owner: 'r', ...lease });
      assert.deepEqual(
        [paced?.url, paced?.paced, paced?.host],
        ['https://list.example/b', 1, 'list.example'],
      );
      const item = await store.db.selectFrom('reading_list').selectAll().executeTakeFirstOrThrow();
      assert.equal(item.page_id, paced?.id);
    },
  );
}
