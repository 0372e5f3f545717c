import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { searchAccount } from '../accounts/search.js';
import { buildDueDigests } from '../digest/build.js';
import { testDigestDeps, saveUrl } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { insertPage, linkQueuedPage } from '../test/pages.js';
import type { Store } from './db.js';
import { indexNewDigestItems } from './searchDocuments.js';

/**
 * Migration 0022: a digest build writes nothing for search; the account's next search indexes the items
 * of its digests built since (store/searchDocuments.ts indexNewDigestItems), on PostgreSQL with the
 * tsvector and grams computed in one statement. They must be what 0015's and 0017's row triggers compute,
 * which an UPDATE of each document still runs.
 */

/** Builds the due digests of `accountIds` now; the outcomes' statuses. */
async function buildNow(store: Store, accountIds: number[]): Promise<string[]> {
  await store.db
    .updateTable('accounts')
    .set({ digest_due_at: '2020-01-01T00:00:00.000Z' })
    .where('id', 'in', accountIds)
    .execute();
  const built = await buildDueDigests(testDigestDeps(store));
  return built
    .filter((o) => accountIds.includes(o.accountId))
    .map((o) => o.status)
    .sort();
}

/** The digest documents of the account (or of all), by item id. */
async function digestDocuments(store: Store, accountId?: number): Promise<number[]> {
  let query = store.db
    .selectFrom('search_documents')
    .select('item_id')
    .where('kind', '=', 'digest')
    .orderBy('item_id');
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  return (await query.execute()).map((d) => d.item_id);
}

/** The ids of the items of the account's digests, in id order. */
async function digestItemIds(store: Store, accountId: number): Promise<number[]> {
  const rows = await store.db
    .selectFrom('digest_items as i')
    .innerJoin('digests as d', 'd.id', 'i.digest_id')
    .select('i.id')
    .where('d.account_id', '=', accountId)
    .orderBy('i.id')
    .execute();
  return rows.map((r) => r.id);
}

await describeEachEngine('search documents of digests, made at the next search', (ctx) => {
  test('a build writes none; the next search indexes each item of the account only, once', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const b = await newAccount(store);
    await saveUrl(store, a.id, 'https://lazy.example/plain', 'Plain tides, example.com/a-b');
    await saveUrl(store, a.id, 'https://lazy.example/ja', '東京タワーの夜景');
    await saveUrl(store, b.id, 'https://lazy.example/th', 'ภาษาไทยง่ายนิดเดียว');
    await saveUrl(store, b.id, 'https://lazy.example/read', 'https://lazy.example/read');
    const pageId = await insertPage(store, {
      url: 'https://lazy.example/read',
      state: 'pending',
      kind: null,
    });
    await linkQueuedPage(store, b.id, 'https://lazy.example/read', pageId);
    await store.db
      .updateTable('pages')
      .set({ state: 'read', kind: 'html', title: 'Le récit du 京都', text: 'Des feuilles, rouges.' })
      .where('id', '=', pageId)
      .execute();
    assert.deepEqual(await buildNow(store, [a.id, b.id]), ['built', 'built']);
    assert.deepEqual(await digestDocuments(store), [], 'the build indexed nothing');

    assert.equal(await indexNewDigestItems(store.db, store.engine, a.id), 2);
    assert.deepEqual(await digestDocuments(store, a.id), await digestItemIds(store, a.id));
    assert.deepEqual(await digestDocuments(store, b.id), [], "the other account's wait for its search");
    assert.equal(await indexNewDigestItems(store.db, store.engine, a.id), 0, 'nothing new the second time');
    const flags = await store.db
      .selectFrom('digests')
      .select(['account_id', 'search_indexed'])
      .where('account_id', 'in', [a.id, b.id])
      .orderBy('account_id')
      .execute();
    assert.deepEqual(
      flags.map((f) => f.search_indexed),
      [1, 0],
    );

    const found = await searchAccount(store, b.id, 'feuilles');
    assert.deepEqual(
      found.hits.map((h) => [h.kind, h.url]),
      [['digest', 'https://lazy.example/read']],
      "found by its page's text at the first search after the build",
    );
    assert.deepEqual(await digestDocuments(store, b.id), await digestItemIds(store, b.id));
    if (store.engine !== 'postgres') return;

    type Indexed = { id: number; tsv: string; grams: string | null };
    const ids = [...(await digestItemIds(store, a.id)), ...(await digestItemIds(store, b.id))];
    const { rows: before } = await sql<Indexed>`
      select id, tsv::text as tsv, grams from search_documents
      where kind = 'digest' and item_id in (${sql.join(ids)}) order by id`.execute(store.db);
    // An UPDATE runs the row triggers, which compute both again from search_texts.
    const { rows: after } = await sql<Indexed>`
      update search_documents set page_id = page_id where kind = 'digest' and item_id in (${sql.join(ids)})
      returning id, tsv::text as tsv, grams`.execute(store.db);
    after.sort((x, y) => x.id - y.id);
    assert.deepEqual(before, after);
    assert.equal(before.filter((d) => d.grams !== null).length, 3, 'grams for the three with such scripts');
    assert.ok(before.every((d) => d.tsv.length > 0));
  });

  test('what changed between the build and the search is what is indexed; a digest deleted is skipped', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    await saveUrl(store, a.id, 'https://between.example/page', 'https://between.example/page');
    await saveUrl(store, a.id, 'https://between.example/gone', 'A vanished bittern');
    assert.deepEqual(await buildNow(store, [a.id]), ['built']);
    // The page read after the build (its digest item updated, as the page reader does).
    const pageId = await insertPage(store, { url: 'https://between.example/page', state: 'read' });
    await store.db
      .updateTable('pages')
      .set({ kind: 'html', title: 'Shearwaters at dusk', text: 'Manx shearwaters return.' })
      .where('id', '=', pageId)
      .execute();
    await store.db
      .updateTable('digest_items')
      .set({ page_id: pageId })
      .where('url', '=', 'https://between.example/page')
      .execute();
    assert.equal((await searchAccount(store, a.id, 'shearwaters')).total, 1);
    assert.equal((await searchAccount(store, a.id, 'bittern')).total, 1);

    await saveUrl(store, a.id, 'https://between.example/next', 'A later heron');
    await store.db
      .updateTable('accounts')
      .set({ digest_due_at: '2020-01-01T00:00:00.000Z' })
      .where('id', '=', a.id)
      .execute();
    const later = await buildDueDigests(
      testDigestDeps(store, { now: () => new Date(Date.now() + 2 * 86_400_000) }),
    );
    assert.deepEqual(
      later.filter((o) => o.accountId === a.id).map((o) => o.status),
      ['built'],
    );
    await store.db.deleteFrom('digest_items').where('url', '=', 'https://between.example/next').execute();
    assert.equal(await indexNewDigestItems(store.db, store.engine, a.id), 0, 'its digest holds nothing now');
    assert.equal((await searchAccount(store, a.id, 'heron')).total, 0);
    assert.deepEqual(await digestDocuments(store, a.id), await digestItemIds(store, a.id));
  });

  test('two searches indexing at once make each document once', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    for (let i = 0; i < 12; i++) await saveUrl(store, a.id, `https://twice.example/${i}`, `Twin egret ${i}`);
    assert.deepEqual(await buildNow(store, [a.id]), ['built']);
    const added = await Promise.all([
      indexNewDigestItems(store.db, store.engine, a.id),
      indexNewDigestItems(store.db, store.engine, a.id),
    ]);
    assert.equal(added[0] + added[1], 12);
    assert.deepEqual(await digestDocuments(store, a.id), await digestItemIds(store, a.id));
    assert.equal((await searchAccount(store, a.id, 'egret')).total, 12);
  });
});
