import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { buildDueDigests } from '../digest/build.js';
import { testDigestDeps, saveUrl } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { insertPage, linkQueuedPage } from '../test/pages.js';

/**
 * Migration 0021 (PostgreSQL): a digest build's items get their search documents from one statement
 * trigger per INSERT, their tsvector and grams computed there. They must be what 0015's and 0017's row
 * triggers compute, which an UPDATE of each document still runs.
 */
await describeEachEngine('search documents of a batch of digests', (ctx) => {
  test('each digest item has its document, with the tsvector and grams the row triggers give', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const b = await newAccount(store);
    await saveUrl(store, a.id, 'https://batch.example/plain', 'Plain tides, example.com/a-b');
    await saveUrl(store, a.id, 'https://batch.example/ja', '東京タワーの夜景');
    await saveUrl(store, b.id, 'https://batch.example/th', 'ภาษาไทยง่ายนิดเดียว');
    await saveUrl(store, b.id, 'https://batch.example/read', 'https://batch.example/read');
    const pageId = await insertPage(store, {
      url: 'https://batch.example/read',
      state: 'pending',
      kind: null,
    });
    await linkQueuedPage(store, b.id, 'https://batch.example/read', pageId);
    await store.db
      .updateTable('pages')
      .set({ state: 'read', kind: 'html', title: 'Le récit du 京都', text: 'Des feuilles, rouges.' })
      .where('id', '=', pageId)
      .execute();
    await store.db
      .updateTable('accounts')
      .set({ digest_due_at: '2020-01-01T00:00:00.000Z' })
      .where('id', 'in', [a.id, b.id])
      .execute();

    const built = await buildDueDigests(testDigestDeps(store));
    assert.deepEqual(built.map((o) => o.status).sort(), ['built', 'built']);
    const items = await store.db.selectFrom('digest_items').select('id').orderBy('id').execute();
    assert.equal(items.length, 4);
    const documents = await store.db
      .selectFrom('search_documents')
      .select(['item_id', 'kind'])
      .where('kind', '=', 'digest')
      .orderBy('item_id')
      .execute();
    assert.deepEqual(
      documents.map((d) => d.item_id),
      items.map((i) => i.id),
      'one document per digest item',
    );
    if (store.engine !== 'postgres') return;

    type Indexed = { id: number; tsv: string; grams: string | null };
    const { rows: before } = await sql<Indexed>`
      select id, tsv::text as tsv, grams from search_documents where kind = 'digest' order by id`.execute(
      store.db,
    );
    // An UPDATE runs the row triggers, which compute both again from search_texts.
    const { rows: after } = await sql<Indexed>`
      update search_documents set page_id = page_id where kind = 'digest'
      returning id, tsv::text as tsv, grams`.execute(store.db);
    after.sort((x, y) => x.id - y.id);
    assert.deepEqual(before, after);
    assert.equal(before.filter((d) => d.grams !== null).length, 3, 'grams for the three with such scripts');
    assert.ok(before.every((d) => d.tsv.length > 0));
  });
});
