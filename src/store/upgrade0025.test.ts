import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { buildDigestNow } from '../digest/build.js';
import { ENTRY_BUDGET } from '../digest/choose/choose.js';
import { digestsOf, itemsOf, testDigestDeps } from '../test/digestPipeline.js';
import { ENGINES, postgresSkipReason, storeMigratedTo } from '../test/databases.js';
import { migrateToLatest } from './migrate.js';

/**
 * 0025 (the digest that chooses): an account upgraded with a backlog of 1,200 feed items from 30 feeds,
 * some published ten days ago, gets one calm digest, not a flood: every item leaves the queue with it, the
 * email shows at most ENTRY_BUDGET entries, and its saved links come first. Digests built before keep
 * showing every item.
 */
const pgSkip = await postgresSkipReason();
for (const engine of ENGINES) {
  await test(
    `0025_digest_choice turns an upgraded backlog into one calm digest [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0024_notify_queue_moves');
      const at = '2026-11-01T00:00:00.000Z';
      await sql`insert into accounts (name, email, timezone, created_at) values ('old', null, 'UTC', ${at})`.execute(
        store.db,
      );
      for (let f = 1; f <= 30; f++) {
        await sql`insert into feeds (url, title, next_fetch_at, created_at)
          values (${`https://f${f}.example/feed`}, ${`Feed ${f}`}, ${at}, ${at})`.execute(store.db);
        await sql`insert into subscriptions (account_id, feed_id, created_at) values (1, ${f}, ${at})`.execute(
          store.db,
        );
      }
      await sql`insert into digests (account_id, local_date, created_at, item_count, saved_count, feed_count,
          remaining, delivery, message_id)
        values (1, '2026-11-12', '2026-11-12T07:00:00.000Z', 1, 0, 1, 1200, 'not_emailed', '<m@x>')`.execute(
        store.db,
      );
      await sql`insert into digest_items (digest_id, position, url, title, source, feed_id, feed_title, queued_at)
        values (1, 0, 'https://f1.example/old', 'An old item', 'feed', 1, 'Feed 1', ${at})`.execute(store.db);
      for (let i = 0; i < 1200; i++) {
        const f = 1 + (i % 30);
        const day = 12 + Math.floor(i / 120);
        const when = `2026-11-${String(day).padStart(2, '0')}T0${i % 10}:00:00.000Z`;
        await sql`insert into queue_items (account_id, url, url_key, title, source, created_at, updated_at,
            feed_id, summary, published_at)
          values (1, ${`https://f${f}.example/${i}`}, ${`f${f}.example/${i}`}, ${`Item ${i} word${i}a word${i}b word${i}c word${i}d`},
            'feed', ${when}, ${when}, ${f}, 'A summary.', ${when})`.execute(store.db);
      }
      await sql`insert into queue_items (account_id, url, url_key, title, source, created_at, updated_at)
        values (1, 'https://mine.example/', 'mine.example/', 'Mine', 'api', ${at}, ${at})`.execute(store.db);
      await migrateToLatest(store);

      const old = await itemsOf(store, 1);
      assert.deepEqual([old[0]?.shown, old[0]?.section], [1, null], 'an older digest shows what it showed');
      const now = new Date('2026-11-22T07:00:00.000Z');
      const outcome = await buildDigestNow(testDigestDeps(store, { now: () => now }), 1);
      assert.equal(outcome.status, 'built');
      const digest = (await digestsOf(store, 1)).at(-1);
      assert.ok(digest !== undefined);
      assert.equal(digest.item_count, 1201);
      const items = await itemsOf(store, digest.id);
      assert.equal(items.at(0)?.title, 'Mine');
      const entries = items.filter((i) => i.shown === 1 && i.story_of === null).length;
      assert.ok(entries <= ENTRY_BUDGET + 1 && entries > 1, `${entries} entries`);
      const left = await store.db.selectFrom('queue_items').select('id').execute();
      assert.equal(left.length, 0, 'the backlog left with the digest');
    },
  );
}
