import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../store/db.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { insertPage } from '../test/pages.js';
import { testReaderDeps } from '../test/pageFixtures.js';
import { type ForgetCursor, enrichOnce } from './enrich.js';

/**
 * Issue 33, point 11: the page reader forgets pages nothing shows a window at a time, from where its last
 * pass stopped, instead of looking at every page every pass (31 ms a pass at 100,000 pages of the reading
 * list: bench/forget-pages.ts measures it).
 */

/** Ten read pages; the reading list shows all but the 4th and the 8th. Their ids, in order. */
async function tenPages(store: Store, site: string): Promise<number[]> {
  const { id: accountId } = await newAccount(store);
  const ids: number[] = [];
  for (let i = 1; i <= 10; i++) {
    const url = `https://${site}.example/${i}`;
    const pageId = await insertPage(store, { url });
    ids.push(pageId);
    if (i === 4 || i === 8) continue;
    const at = '2026-11-28T00:00:00.000Z';
    await store.db
      .insertInto('reading_list')
      .values({
        account_id: accountId,
        url,
        url_key: url,
        title: url,
        saved_at: at,
        source: 'pocket',
        page_id: pageId,
        created_at: at,
        updated_at: at,
      })
      .execute();
  }
  return ids;
}

async function left(store: Store, ids: readonly number[]): Promise<number[]> {
  const rows = await store.db.selectFrom('pages').select('id').where('id', 'in', ids).orderBy('id').execute();
  return rows.map((r) => ids.indexOf(r.id) + 1);
}

await describeEachEngine('forgetting unused pages', (ctx) => {
  test('a worker’s pass looks at one window, from where the last one stopped, and starts again at the end', async () => {
    const store = ctx.store();
    const ids = await tenPages(store, 'window');
    const deps = testReaderDeps(store);
    const forget: ForgetCursor = { after: 0 };
    const pass = async (): Promise<number> => (await enrichOnce(deps, { forget, forgetWindow: 5 })).forgotten;
    assert.equal(await pass(), 1, 'pages 1–5: the 4th');
    assert.equal(forget.after, ids[4]);
    assert.deepEqual(await left(store, ids), [1, 2, 3, 5, 6, 7, 8, 9, 10]);
    assert.equal(await pass(), 1, 'pages 6–10: the 8th');
    assert.equal(forget.after, ids[9]);
    assert.equal(await pass(), 0, 'past the last page: nothing, and the walk starts again');
    assert.equal(forget.after, 0);
    // A page nothing shows any more, behind the cursor: found when the walk comes round again.
    await store.db
      .deleteFrom('reading_list')
      .where('page_id', '=', ids[0] ?? 0)
      .execute();
    assert.equal(await pass(), 1);
    assert.deepEqual(await left(store, ids), [2, 3, 5, 6, 7, 9, 10]);
  });

  test('a pass of its own (tidings enrich) walks every window', async () => {
    const store = ctx.store();
    const ids = await tenPages(store, 'whole');
    assert.equal((await enrichOnce(testReaderDeps(store), { forgetWindow: 3 })).forgotten, 2);
    assert.deepEqual(await left(store, ids), [1, 2, 3, 5, 6, 7, 9, 10]);
  });
});
