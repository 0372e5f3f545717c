import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { searchAccount } from '../accounts/search.js';
import { operatorAccount } from '../accounts/authorize.js';
import { ENGINES, postgresSkipReason, storeMigratedTo } from '../test/databases.js';
import { UNSPACED } from '../lib/searchQuery.js';
import { migrateToLatest } from './migrate.js';
import { UNSPACED_RANGES } from './migrations/0017_search_ngrams.js';
import { indexNewQueueItems } from './searchDocuments.js';

/**
 * 0015_search indexes what a database in use already holds: queued items, digest items, and the text of
 * pages read before pages.text existed (from their HTML, entities decoded, tags gone).
 */
const pgSkip = await postgresSkipReason();
for (const engine of ENGINES) {
  await test(
    `0015_search indexes the queue, the digests and the pages already there [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0012_feed_skips');
      const at = '2026-10-01T07:00:00.000Z';
      await sql`insert into accounts (name, email, timezone, created_at) values ('a', null, 'UTC', ${at}),
        ('b', null, 'UTC', ${at})`.execute(store.db);
      await sql`insert into pages (url, url_key, state, kind, title, html, created_at)
        values ('https://old.example/p', 'kp', 'read', 'html', 'Page title',
          '<p>Storm &amp; <em>petrels</em>&#x21;</p><p>Caf&eacute; talk</p>', ${at})`.execute(store.db);
      await sql`insert into queue_items (account_id, url, url_key, title, source, created_at, updated_at, page_id)
        values (1, 'https://old.example/p', 'kp', 'https://old.example/p', 'api', ${at}, ${at}, 1),
          (2, 'https://old.example/q', 'kq', 'Petrels of b', 'api', ${at}, ${at}, null)`.execute(store.db);
      await sql`insert into digests (account_id, local_date, created_at, item_count, saved_count, feed_count,
          remaining, delivery, message_id)
        values (1, '2026-09-30', ${at}, 1, 1, 0, 0, 'not_emailed', 'm1')`.execute(store.db);
      await sql`insert into digest_items (digest_id, position, url, title, source, queued_at)
        values (1, 0, 'https://older.example/', 'An older gannet', 'api', ${at})`.execute(store.db);

      await migrateToLatest(store);
      const page = await store.db.selectFrom('pages').select('text').executeTakeFirstOrThrow();
      assert.equal(page.text, 'Storm & petrels! Café talk');
      const a = await operatorAccount(store, 1);
      const petrels = await searchAccount(store, a, 'petrels');
      assert.equal(petrels.total, 1);
      assert.equal(petrels.hits[0]?.kind, 'queue');
      assert.deepEqual(
        petrels.hits[0].title.map((s) => s.text).join(''),
        'Page title',
        "the page's title stands in for the URL",
      );
      const gannet = await searchAccount(store, a, 'gannet');
      assert.deepEqual(
        gannet.hits.map((h) => [h.kind, h.digestDate]),
        [['digest', '2026-09-30']],
      );
      const b = await operatorAccount(store, 2);
      assert.equal((await searchAccount(store, b, 'petrels')).total, 1);
      assert.equal((await searchAccount(store, b, 'gannet')).total, 0);
    },
  );
}

test('0017_search_ngrams indexes every character that lib/searchQuery.ts reads as a script without spaces', () => {
  const inRanges = (c: number) => UNSPACED_RANGES.some(([first, last]) => c >= first && c <= last);
  const missed: string[] = [];
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    if (UNSPACED.test(String.fromCodePoint(c)) && !inRanges(c)) missed.push(c.toString(16));
  }
  assert.deepEqual(missed, []);
});

for (const engine of ENGINES) {
  await test(
    `0017_search_ngrams indexes the documents already there in scripts without spaces [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0016_unsubscribe_tokens');
      const at = '2026-10-01T07:00:00.000Z';
      await sql`insert into accounts (name, email, timezone, created_at) values ('a', null, 'UTC', ${at}),
        ('b', null, 'UTC', ${at})`.execute(store.db);
      await sql`insert into pages (url, url_key, state, kind, title, html, text, created_at)
        values ('https://old.example/p', 'kp', 'read', 'html', 'Old page', '<p>京都の紅葉</p>', '京都の紅葉',
          ${at})`.execute(store.db);
      const queue = (account: number, key: string, title: string, page: number | null = null) =>
        sql`insert into queue_items (account_id, url, url_key, title, source, created_at, updated_at, page_id)
          values (${account}, ${`https://old.example/${key}`}, ${key}, ${title}, 'api', ${at}, ${at}, ${page})`.execute(
          store.db,
        );
      await queue(1, 'p', 'https://old.example/p', 1);
      await queue(1, 'q', '東京の夜');
      await queue(1, 'r', 'Plain gannet');
      await queue(2, 's', '東京 of b');
      await sql`insert into digests (account_id, local_date, created_at, item_count, saved_count, feed_count,
          remaining, delivery, message_id)
        values (1, '2026-09-30', ${at}, 1, 1, 0, 0, 'not_emailed', 'm1')`.execute(store.db);
      await sql`insert into digest_items (digest_id, position, url, title, source, queued_at)
        values (1, 0, 'https://older.example/', '北京の天気', 'api', ${at})`.execute(store.db);
      await indexNewQueueItems(store.db, 1);
      await indexNewQueueItems(store.db, 2);
      await queue(1, 't', '大阪の朝');

      await migrateToLatest(store);
      const entries =
        engine === 'sqlite'
          ? sql<{ n: number }>`select count(*) as n from search_grams`
          : sql<{ n: string }>`select count(*) as n from search_documents where grams is not null`;
      assert.equal(Number((await entries.execute(store.db)).rows[0]?.n), 4, 'the four documents with CJK');
      const a = await operatorAccount(store, 1);
      const count = async (q: string, account = a) => (await searchAccount(store, account, q)).total;
      assert.equal(await count('京'), 3, "the page's text, a queued title, a digest item");
      assert.equal(await count('紅葉'), 1);
      assert.equal(await count('東京の'), 1);
      assert.equal(await count('大阪'), 1, 'an item saved before the upgrade, indexed at the next search');
      assert.equal(await count('gannet'), 1);
      const b = await operatorAccount(store, 2);
      assert.equal(await count('東京', b), 1);
      assert.equal(await count('京都', b), 0);
    },
  );
}

for (const engine of ENGINES) {
  await test(
    `0022_digest_search_lazy keeps the digests indexed before it and leaves new ones to the next search [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0021_digest_search_batch');
      const at = '2026-10-01T07:00:00.000Z';
      await sql`insert into accounts (name, email, timezone, created_at) values ('a', null, 'UTC', ${at})`.execute(
        store.db,
      );
      const digest = async (day: string) =>
        sql`insert into digests (account_id, local_date, created_at, item_count, saved_count, feed_count,
            remaining, delivery, message_id)
          values (1, ${day}, ${at}, 1, 1, 0, 0, 'not_emailed', ${`m${day}`})`.execute(store.db);
      const item = async (digestId: number, title: string) =>
        sql`insert into digest_items (digest_id, position, url, title, source, queued_at)
          values (${digestId}, 0, ${`https://older.example/${digestId}`}, ${title}, 'api', ${at})`.execute(
          store.db,
        );
      await digest('2026-09-30');
      await item(1, 'An older gannet');

      await migrateToLatest(store);
      await digest('2026-10-01');
      await item(2, 'A newer gannet');
      const flags = await store.db
        .selectFrom('digests')
        .select(['id', 'search_indexed'])
        .orderBy('id')
        .execute();
      assert.deepEqual(flags, [
        { id: 1, search_indexed: 1 },
        { id: 2, search_indexed: 0 },
      ]);
      const documents = async () =>
        (await store.db.selectFrom('search_documents').select('item_id').orderBy('item_id').execute()).map(
          (d) => d.item_id,
        );
      assert.deepEqual(await documents(), [1], "the upgrade's digest was indexed by 0021's trigger");
      const a = await operatorAccount(store, 1);
      const found = await searchAccount(store, a, 'gannet');
      assert.deepEqual(
        found.hits.map((h) => h.digestDate),
        ['2026-10-01', '2026-09-30'],
      );
      assert.deepEqual(await documents(), [1, 2], 'each once');
    },
  );
}
