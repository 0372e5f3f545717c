import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { buildDigestNow } from '../digest/build.js';
import { removeQueuedItem } from '../queue/remove.js';
import type { Store } from '../store/db.js';
import { testDigestDeps, saveUrl } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { insertPage, linkQueuedPage } from '../test/pages.js';
import { type SearchResults, searchAccount } from './search.js';

/**
 * Terms of scripts without spaces (Chinese, Japanese, Thai…) read migration 0017's trigram index: SQLite's
 * search_grams, PostgreSQL's search_documents.grams (pg_trgm). Same hits as the scan they replace.
 */

const marked = (r: SearchResults) =>
  r.hits.map((h) => [...h.title, ...h.snippet].filter((s) => s.mark).map((s) => s.text));

/** The ids of the documents that have an entry in the trigram index (of the account, when given). */
async function gramDocuments(store: Store, accountId?: number): Promise<number[]> {
  const account = accountId === undefined ? sql`` : sql`and d.account_id = ${accountId}`;
  const { rows } =
    store.engine === 'sqlite'
      ? await sql<{ id: number }>`select g.rowid as id from search_grams g
          left join search_documents d on d.id = g.rowid where true ${account} order by g.rowid`.execute(
          store.db,
        )
      : await sql<{ id: number }>`select id from search_documents d
          where grams is not null ${account} order by id`.execute(store.db);
  return rows.map((r) => r.id);
}

/** Removes a document's trigram entry behind the triggers' back (what a search then finds is the index's). */
async function dropGramEntry(store: Store, documentId: number): Promise<void> {
  if (store.engine === 'sqlite') {
    await sql`delete from search_grams where rowid = ${documentId}`.execute(store.db);
    return;
  }
  await sql`alter table search_documents disable trigger search_documents_grams`.execute(store.db);
  await sql`update search_documents set grams = null where id = ${documentId}`.execute(store.db);
  await sql`alter table search_documents enable trigger search_documents_grams`.execute(store.db);
}

const documentOf = async (store: Store, accountId: number, url: string): Promise<number> => {
  const row = await sql<{ id: number }>`select d.id from search_documents d
    join queue_items q on q.id = d.item_id and d.kind = 'queue'
    where q.account_id = ${accountId} and q.url = ${url}`.execute(store.db);
  const id = row.rows[0]?.id;
  assert.ok(id !== undefined, url);
  return id;
};

await describeEachEngine('search: scripts without spaces', (ctx) => {
  test('terms of 1, 2 and 3+ characters, Thai, mixed case, phrases, OR and exclusions, per account', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const b = await newAccount(store);
    await saveUrl(store, a.id, 'https://intl.example/ja', '東京タワーの夜景');
    await saveUrl(store, a.id, 'https://intl.example/zh', '北京的天气很好');
    await saveUrl(store, a.id, 'https://intl.example/th', 'ภาษาไทยง่ายนิดเดียว');
    await saveUrl(store, a.id, 'https://intl.example/mixed', 'IPHONE東京 review');
    await saveUrl(store, a.id, 'https://intl.example/end', '最後は猫');
    await saveUrl(store, a.id, 'https://intl.example/quoted', 'The sign said "東" only');
    await saveUrl(store, a.id, 'https://intl.example/plain', 'Plain tides');
    await saveUrl(store, b.id, 'https://intl.example/b', '東京の夜景と猫');
    const count = async (q: string, account = a.id) => (await searchAccount(store, account, q)).total;

    assert.equal(await count('東京'), 2, 'two characters');
    assert.equal(await count('京'), 3, 'one character: 東京 twice and 北京');
    assert.equal(await count('東'), 3, 'one character next to a quote');
    assert.equal(await count('猫'), 1, 'one character, last of the text');
    assert.equal(await count('は猫'), 1, 'two characters, last of the text');
    assert.equal(await count('タワーの'), 1, 'four characters');
    assert.equal(await count('東京タワーの夜景です'), 0, 'longer than any text');
    assert.equal(await count('ไทย'), 1, 'Thai');
    assert.equal(await count('ง่าย'), 1, 'Thai with a tone mark');
    assert.equal(await count('iphone東京'), 1, 'ASCII letters case folded, as the scan did');
    assert.equal(await count('"東京 タワー"'), 0, 'a phrase is its words with a space between');
    assert.equal(await count('"iphone東京 review"'), 1);
    assert.equal(await count('東京 review'), 1, 'a substring and a word');
    assert.equal(await count('東京 -タワー'), 1, 'a substring and an excluded substring');
    assert.equal(await count('京 -tides'), 3, 'an excluded word');
    assert.equal(await count('tides OR 猫'), 2);
    assert.equal(await count('tides -京'), 1, 'a document without these scripts is kept by an exclusion');
    assert.equal(await count('tides -"東京 タワー"'), 1);
    assert.equal(await count('天气 OR 夜景'), 2);
    assert.equal(await count('夜景 -東'), 0);
    assert.deepEqual(marked(await searchAccount(store, a.id, '夜景')), [['夜景']]);
    assert.deepEqual(marked(await searchAccount(store, a.id, '京')), [['京'], ['京'], ['京']]);

    assert.equal(await count('東京', b.id), 1, "the other account's items are not counted");
    assert.equal(await count('猫', b.id), 1);
    assert.equal(await count('天气', b.id), 0);
    const withScripts = [
      ...(await Promise.all(
        ['ja', 'zh', 'th', 'mixed', 'end', 'quoted'].map(async (p) =>
          documentOf(store, a.id, `https://intl.example/${p}`),
        ),
      )),
      await documentOf(store, b.id, 'https://intl.example/b'),
    ].sort((x, y) => x - y);
    assert.deepEqual(
      await gramDocuments(store),
      withScripts,
      'only documents with such a script are indexed',
    );

    await dropGramEntry(store, await documentOf(store, a.id, 'https://intl.example/ja'));
    assert.equal(await count('夜景'), 0, 'the search reads the index, not the text');
    assert.equal(await count('タ'), 0);
  });

  test('the index follows the document: a page read later, its text changed, a digest, a removal, the account', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const count = async (q: string) => (await searchAccount(store, a.id, q)).total;
    const url = 'https://later.example/kyoto';
    await saveUrl(store, a.id, url, 'A travel note');
    assert.equal(await count('京都'), 0);
    assert.deepEqual(await gramDocuments(store, a.id), []);
    const pageId = await insertPage(store, { url, state: 'pending', kind: null });
    await linkQueuedPage(store, a.id, url, pageId);
    await store.db
      .updateTable('pages')
      .set({ state: 'read', kind: 'html', text: '京都の紅葉はとても美しい。' })
      .where('id', '=', pageId)
      .execute();
    assert.equal(await count('京都'), 1);
    assert.equal(await count('紅葉は'), 1);
    await store.db.updateTable('pages').set({ text: '大阪の夜。' }).where('id', '=', pageId).execute();
    assert.equal(await count('紅葉'), 0);
    assert.equal(await count('大阪'), 1);
    await store.db.updateTable('pages').set({ text: 'Only words now.' }).where('id', '=', pageId).execute();
    assert.equal(await count('大阪'), 0);
    assert.deepEqual(await gramDocuments(store, a.id), [], 'no such script left, no entry');

    await saveUrl(store, a.id, 'https://later.example/osaka', '大阪城の桜');
    assert.equal(await count('大阪城'), 1);
    assert.equal((await buildDigestNow(testDigestDeps(store), a.id)).status, 'built');
    const digested = await searchAccount(store, a.id, '桜');
    assert.deepEqual(
      digested.hits.map((h) => h.kind),
      ['digest'],
    );
    assert.equal((await gramDocuments(store, a.id)).length, 1, "the queue item's entry went with it");

    await saveUrl(store, a.id, 'https://later.example/gone', '消える記事');
    const gone = await searchAccount(store, a.id, '記事');
    assert.equal(gone.total, 1);
    assert.ok(await removeQueuedItem(store, a.id, gone.hits[0]?.itemId ?? 0));
    assert.equal(await count('記事'), 0);
    assert.equal((await gramDocuments(store, a.id)).length, 1);

    const entries = await gramDocuments(store, a.id);
    await store.db.deleteFrom('accounts').where('id', '=', a.id).execute();
    const left = (await gramDocuments(store)).filter((id) => entries.includes(id));
    assert.deepEqual(left, [], 'an account deleted leaves no entry');
  });
});
