import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { type TestContext, test } from 'node:test';
import { strToU8 } from 'fflate';
import { operatorAccount } from '../accounts/authorize.js';
import { importReadingList } from '../imports/importLinks.js';
import type { Worker } from '../lib/workers.js';
import { addSavedUrl } from '../queue/add.js';
import { type Store, openStore } from '../store/db.js';
import { useFeedServer } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { PAGE_TEST_HOST, testReaderDeps } from '../test/pageFixtures.js';
import { startPacedReader } from './pacedReader.js';
import { startPageReader } from './worker.js';

/**
 * Issue 33, point 5: a saved link is read at once, not after the reader's sleep (up to 30 s). The readers
 * here would sleep an hour between passes, so every page read after their first pass was woken: by a
 * save or an import of this process, and on PostgreSQL by another process's (a second store on the same
 * database: its own pool, writer and listeners, as another process has), through the change feed.
 */

const HOUR = 3_600_000;

const article = (title: string): string =>
  `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>` +
  '<p>The tide turns twice a day, and the harbour fills and empties with it like a slow lung.</p>' +
  '<p>Boats that went out at dawn come back on the evening flood, low in the water with the catch.</p>' +
  '</article></body></html>';

/** Resolves once `url`'s page (of a queue or reading-list item) is read, with its title. */
async function readTitle(store: Store, url: string): Promise<string | null> {
  for (;;) {
    const row = await store.db
      .selectFrom('pages')
      .select(['state', 'title'])
      .where('url', '=', url)
      .executeTakeFirst();
    if (row?.state === 'read') return row.title;
    await sleep(10);
  }
}

/** Stops the worker when the test ends. */
function stopAfter(t: TestContext, worker: Worker): Worker {
  t.after(() => worker.stop());
  return worker;
}

await describeEachEngine('the page readers, woken by a save or an import', (ctx) => {
  const server = useFeedServer(PAGE_TEST_HOST);
  const page = (path: string, title: string): string =>
    server().route(path, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(article(title));
    });

  test(
    'a link saved through the API is read at once, though the reader would sleep an hour',
    { timeout: 120_000 },
    async (t) => {
      const store = ctx.store();
      const app = testServer(store);
      t.after(() => app.close());
      const account = await newAccount(store);
      stopAfter(t, startPageReader(testReaderDeps(store), { maxSleepMs: HOUR }));
      for (const n of [1, 2]) {
        const url = page(`/saved-${n}`, `Saved page ${n}`);
        const saved = performance.now();
        const res = await app.inject({
          method: 'POST',
          url: `/api/v1/articles?apiKey=${account.apiKey}`,
          payload: { url },
        });
        assert.equal(res.statusCode, 200, res.body);
        // The second was saved after the first was read: after the pass that read it had linked its links.
        assert.equal(await readTitle(store, url), `Saved page ${n}`);
        t.diagnostic(`save ${n} → title read: ${Math.round(performance.now() - saved)} ms`);
      }
    },
  );

  test(
    'links imported into the reading list are read at once, at the pace',
    { timeout: 120_000 },
    async (t) => {
      const store = ctx.store();
      const account = await operatorAccount(store, (await newAccount(store)).id);
      const deps = testReaderDeps(store);
      stopAfter(t, startPacedReader(deps, { perMinute: 600_000, hostRestMs: 0, maxSleepMs: HOUR }));
      for (const n of [1, 2]) {
        const url = page(`/imported-${n}`, `Imported page ${n}`);
        const file = strToU8(`title,url,time_added,tags,status\n,${url},1500000000,,unread\n`);
        assert.equal((await importReadingList(store, account, file, 'pocket')).imported, 1);
        assert.equal(await readTitle(store, url), `Imported page ${n}`);
      }
    },
  );

  if (ctx.engine === 'postgres') {
    test('another process’s save and import wake this one’s readers', { timeout: 120_000 }, async (t) => {
      const store = ctx.store();
      const other = openStore(ctx.url());
      t.after(() => other.close());
      const id = (await newAccount(store)).id;
      stopAfter(t, startPageReader(testReaderDeps(store), { maxSleepMs: HOUR }));
      const paced = { perMinute: 600_000, hostRestMs: 0, maxSleepMs: HOUR };
      stopAfter(t, startPacedReader(testReaderDeps(store), paced));
      // Listening: a notice committed from now on reaches this store's readers.
      await store.changes?.whenSynced();
      for (const n of [1, 2]) {
        const url = page(`/elsewhere-${n}`, `Saved elsewhere ${n}`);
        const outcome = await addSavedUrl(
          other,
          id,
          { url, title: undefined, source: 'api' },
          { limit: 100 },
        );
        assert.equal(outcome, 'added');
        assert.equal(await readTitle(store, url), `Saved elsewhere ${n}`);
      }
      for (const n of [1, 2]) {
        const url = page(`/imported-elsewhere-${n}`, `Imported elsewhere ${n}`);
        const file = strToU8(`title,url,time_added,tags,status\n,${url},1500000000,,unread\n`);
        await importReadingList(other, await operatorAccount(other, id), file, 'pocket');
        assert.equal(await readTitle(store, url), `Imported elsewhere ${n}`);
      }
    });
  }
});
