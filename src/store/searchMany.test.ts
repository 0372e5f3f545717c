/**
 * A search whose every item matches (issue 25, F5): 16 one-character terms of a script without spaces,
 * each in every item of the account. Its answer (count and first page, or the stated bound past
 * RANKED_HITS) on both engines; on PostgreSQL the plan counts the hits once, not once per hit; on SQLite
 * the statements run off the event loop (searchThread.ts). The speed is bench:search's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { searchAccount } from '../accounts/search.js';
import { parseSearchQuery } from '../lib/searchQuery.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import type { Store } from './db.js';
import type { Database } from './schema.js';
import {
  SQLITE_INDEX_BATCH,
  indexNewItems,
  indexNewQueueItems,
  searchDocumentCount,
  searchItems,
} from './searchDocuments.js';
import { pagesReadInThread } from './searchThread.js';

const SIXTEEN = '東京大阪日本語中文字新聞記事天気';
const QUERY = Array.from(SIXTEEN).join(' ');
const ITEMS = 300;

/** `n` queue items of the account, each title holding the 16 characters (rotated), item i made at second i. */
async function seed(store: Store, accountId: number, n: number): Promise<void> {
  const rows = Array.from({ length: n }, (_, i) => {
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    const title = `${SIXTEEN.slice(i % 16)}${SIXTEEN.slice(0, i % 16)} ${i}`;
    const url = `https://many.example/${i}`;
    return {
      account_id: accountId,
      url,
      url_key: url,
      title,
      source: 'api' as const,
      created_at: at,
      updated_at: at,
      feed_id: null,
      summary: null,
      published_at: null,
    };
  });
  for (let i = 0; i < rows.length; i += 100) {
    await store.db
      .insertInto('queue_items')
      .values(rows.slice(i, i + 100))
      .execute();
  }
}

interface PlanNode {
  'Node Type': string;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

const numbers = (titles: string[]) => titles.map((t) => Number(t.split(' ')[1]));

await describeEachEngine('search over many hits', (ctx) => {
  test('every item matching 16 one-character terms: the count, the first page newest first, the bound', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const b = await newAccount(store);
    await seed(store, a.id, ITEMS);
    await seed(store, b.id, 5);
    const found = await searchAccount(store, a.id, QUERY);
    assert.deepEqual([found.total, found.capped, found.hits.length], [ITEMS, false, 20]);
    const newest = Array.from({ length: 20 }, (_, k) => ITEMS - 1 - k);
    assert.deepEqual(numbers(found.hits.map((h) => h.title.map((s) => s.text).join(''))), newest);
    assert.ok(found.hits.every((h) => h.title.filter((s) => s.mark).length > 0));
    const last = await searchAccount(store, a.id, QUERY, { offset: ITEMS - 5 });
    assert.deepEqual([last.total, last.hits.length], [ITEMS, 5]);
    // One character missing from one item: that item is not a hit.
    assert.equal((await searchAccount(store, a.id, `${QUERY.slice(0, -1)}雪`)).total, 0);
    assert.equal((await searchAccount(store, b.id, QUERY)).total, 5, "another account's are not counted");

    // Past the ranked maximum: the stated bound (cap + 1, capped), the newest first.
    await indexNewQueueItems(store.db, a.id);
    const query = parseSearchQuery(QUERY);
    const capped = await searchItems(store.db, store.engine, a.id, query, {
      limit: 20,
      offset: 0,
      rankedHits: 100,
    });
    assert.deepEqual([capped.total, capped.capped], [101, true]);
    assert.deepEqual(numbers(capped.rows.map((r) => r.title)), newest);
  });

  if (ctx.engine === 'postgres') {
    test('PostgreSQL counts the hits once, not once for each hit', async () => {
      const store = ctx.store();
      const a = await newAccount(store);
      await seed(store, a.id, ITEMS);
      await indexNewQueueItems(store.db, a.id);
      // The statements of the search as sent, through a Kysely of their own that logs them.
      const sent: { sql: string; parameters: readonly unknown[] }[] = [];
      const pool = new pg.Pool({ connectionString: ctx.url(), max: 1 });
      const logged = new Kysely<Database>({
        dialect: new PostgresDialect({ pool }),
        log: (event) => void sent.push(event.query),
      });
      try {
        await searchItems(logged, 'postgres', a.id, parseSearchQuery(QUERY), { limit: 20, offset: 0 });
        const counting = sent.find((q) => q.sql.includes('count(*)'));
        assert.ok(counting !== undefined, 'a statement counts the hits');
        const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          `explain (analyze, format json) ${counting.sql}`,
          [...counting.parameters],
        );
        const plan = rows[0]?.['QUERY PLAN'][0].Plan;
        assert.ok(plan !== undefined);
        const aggregates = nodes(plan).filter((n) => n['Node Type'] === 'Aggregate');
        assert.ok(aggregates.length > 0);
        for (const n of aggregates) assert.equal(n['Actual Loops'], 1, 'the count runs once');
      } finally {
        await logged.destroy();
      }
    });
  }

  if (ctx.engine === 'sqlite') {
    test('SQLite reads the hits off the event loop: its reader thread answers the search', async () => {
      const store = ctx.store();
      const a = await newAccount(store);
      await seed(store, a.id, ITEMS);
      await indexNewQueueItems(store.db, a.id);
      // A count, not a race: the event loop turns while a thread reads (its answer comes as a message),
      // and whether a callback happens to run first depends on how busy the machine is.
      const before = pagesReadInThread(store.db);
      const found = await searchItems(store.db, store.engine, a.id, parseSearchQuery(QUERY), {
        limit: 20,
        offset: 0,
      });
      assert.equal(found.total, ITEMS);
      assert.equal(pagesReadInThread(store.db), before + 1, 'the page was read by the reader thread');
    });

    test('SQLite indexes new items a batch at a time, letting the event loop turn between batches', async () => {
      const store = ctx.store();
      const a = await newAccount(store);
      await seed(store, a.id, ITEMS);
      let turns = 0;
      let indexing = true;
      const tick = (): void => {
        turns++;
        if (indexing) setImmediate(tick);
      };
      setImmediate(tick);
      await indexNewItems(store.db, store.engine, a.id);
      indexing = false;
      assert.equal(await searchDocumentCount(store.db, a.id), ITEMS, 'every item indexed');
      assert.ok(turns >= Math.floor(ITEMS / SQLITE_INDEX_BATCH) - 1, `the event loop turned ${turns} times`);
    });
  }
});
