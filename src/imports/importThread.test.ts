import assert from 'node:assert/strict';
import { test } from 'node:test';
import { operatorAccount } from '../accounts/authorize.js';
import { isTidingsError } from '../errors.js';
import type { AccountId } from '../lib/authorized.js';
import { readingListCounts } from '../store/readingList.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { importReadingList } from './importLinks.js';
import { IMPORT_THREAD_LIMITS, ImportThreads } from './importThread.js';
import { fixture, omnivoreZip } from './testdata/fixtures.js';

/** A Wallabag export of `n` entries of about 10 KB of HTML each, every one sanitised when it is read. */
const wallabag = (n: number, host = 'w'): Buffer =>
  Buffer.from(
    JSON.stringify(
      Array.from({ length: n }, (_, i) => ({
        is_archived: 0,
        title: `Entry ${i}`,
        url: `https://${host}.example/${i}`,
        content: '<p>The tide comes in <b>twice</b> a day; <a href="/x" onclick="y()">see</a>.</p>'.repeat(
          120,
        ),
      })),
    ),
  );

await describeEachEngine('reading-list import in a thread', (ctx) => {
  const account = async () => operatorAccount(ctx.store(), (await newAccount(ctx.store())).id);

  test('the same counts and items as the import in place', async () => {
    const threads = new ImportThreads();
    const [inThread, inPlace] = [await account(), await account()];
    for (const file of [fixture('pocket.csv'), omnivoreZip(), fixture('wallabag.json')]) {
      const a = await threads.importFile(ctx.store(), inThread, file.slice(), 'auto');
      const b = await importReadingList(ctx.store(), inPlace, file, 'auto');
      assert.deepEqual(a, b);
    }
    const rows = (id: number) =>
      ctx
        .store()
        .db.selectFrom('reading_list')
        .select(['url', 'title', 'state', 'tags', 'saved_at', 'html', 'text', 'source'])
        .where('account_id', '=', id)
        .orderBy('url')
        .execute();
    assert.deepEqual(await rows(inThread), await rows(inPlace));
  });

  test('a file that is not an export is refused with its reason; nothing is written', async () => {
    const id = await account();
    await assert.rejects(
      new ImportThreads().importFile(ctx.store(), id, Buffer.from('hello\n'), 'auto'),
      (err) => isTidingsError(err, 'invalid_input'),
    );
    assert.deepEqual(await readingListCounts(ctx.store().db, id), { unread: 0, archived: 0 });
  });

  test('past the imports that may wait, one more is refused at once; the others finish', async () => {
    const threads = new ImportThreads({ ...IMPORT_THREAD_LIMITS, running: 1, waiting: 1 });
    const id = await account();
    const first = threads.importFile(ctx.store(), id, fixture('pocket.csv'), 'auto');
    const second = threads.importFile(ctx.store(), id, fixture('bookmarks.html'), 'auto');
    await assert.rejects(threads.importFile(ctx.store(), id, fixture('wallabag.json'), 'auto'), (err) =>
      isTidingsError(err, 'limit_reached'),
    );
    assert.equal((await first).format, 'pocket');
    assert.equal((await second).format, 'bookmarks');
  });

  test('a thread whose heap fills is refused, the limit named; the server thread carries on', async () => {
    const threads = new ImportThreads({ ...IMPORT_THREAD_LIMITS, oldMb: 8 });
    const id = await account();
    const big = Buffer.from(
      `title,url,time_added,tags,status\n${Array.from({ length: 60_000 }, (_, i) => `T ${i},https://m.example/${i},1609459200,a|b,unread`).join('\n')}\n`,
    );
    await assert.rejects(threads.importFile(ctx.store(), id, big, 'auto'), (err) => {
      assert.ok(isTidingsError(err, 'limit_reached'), String(err));
      assert.match(err.message, /more memory than an import may use \(8 MB\)/);
      return true;
    });
    assert.deepEqual(await readingListCounts(ctx.store().db, id), { unread: 0, archived: 0 });
  });

  test('a thread that reads past the time limit is ended and its file refused, the limit named (issue 33 C)', async () => {
    // The limit made tiny: any file takes longer to read, this one (200 entries sanitised) far longer.
    const threads = new ImportThreads({ ...IMPORT_THREAD_LIMITS, readMs: 1 });
    const id = await account();
    const timedOut = (err: unknown) => {
      assert.ok(isTidingsError(err, 'limit_reached'), String(err));
      assert.match(err.message, /took longer than 0\.001 s, the most an import may take/);
      return true;
    };
    // The second waits its turn and gets it once the first thread is ended: the place is given back.
    const first = threads.importFile(ctx.store(), id, wallabag(200), 'auto');
    const second = threads.importFile(ctx.store(), id, wallabag(200), 'auto');
    await assert.rejects(first, timedOut);
    await assert.rejects(second, timedOut);
    assert.equal(threads.parsing, 0);
    assert.deepEqual(await readingListCounts(ctx.store().db, id), { unread: 0, archived: 0 });
  });

  test('another account’s upload gets its turn before one account’s further uploads (issue 33 C)', async () => {
    const threads = new ImportThreads({
      ...IMPORT_THREAD_LIMITS,
      running: 1,
      waiting: 4,
      waitingPerAccount: 3,
    });
    const [a, b] = [await account(), await account()];
    const done: string[] = [];
    const upload = (name: string, id: AccountId, file: Uint8Array) =>
      threads.importFile(ctx.store(), id, file, 'auto').then(() => {
        done.push(name);
      });
    // One account's large upload running and two more of its own waiting; then another account's.
    await Promise.all([
      upload('a1', a, wallabag(20, 'a1')),
      upload('a2', a, wallabag(10, 'a2')),
      upload('a3', a, wallabag(10, 'a3')),
      upload('b1', b, fixture('pocket.csv')),
    ]);
    assert.deepEqual(done, ['a1', 'b1', 'a2', 'a3']);
  });

  test('one account may hold only its share of the waiting places; another still gets one', async () => {
    const threads = new ImportThreads({
      ...IMPORT_THREAD_LIMITS,
      running: 1,
      waiting: 3,
      waitingPerAccount: 2,
    });
    const [a, b] = [await account(), await account()];
    const running = threads.importFile(ctx.store(), a, wallabag(10, 'r'), 'auto');
    const waitingA = [1, 2].map((n) => threads.importFile(ctx.store(), a, wallabag(10, `q${n}`), 'auto'));
    await assert.rejects(threads.importFile(ctx.store(), a, fixture('pocket.csv'), 'auto'), (err) => {
      assert.ok(isTidingsError(err, 'limit_reached'), String(err));
      assert.match(err.message, /2 of your imports are waiting their turn/);
      return true;
    });
    const other = threads.importFile(ctx.store(), b, fixture('pocket.csv'), 'auto');
    assert.equal((await other).imported, 3);
    await Promise.all([running, ...waitingA]);
  });

  test('an upload abandoned while it waits leaves its place at once; its file is never read', async () => {
    const waiting: number[] = [];
    const threads = new ImportThreads(
      { ...IMPORT_THREAD_LIMITS, running: 1, waiting: 1 },
      { waiting: (n) => waiting.push(n) },
    );
    const [a, b] = [await account(), await account()];
    const running = threads.importFile(ctx.store(), a, wallabag(10), 'auto');
    const gone = new AbortController();
    const abandoned = threads.importFile(ctx.store(), b, fixture('pocket.csv'), 'auto', gone.signal);
    assert.deepEqual(waiting, [1]);
    gone.abort(new Error('the client went away'));
    await assert.rejects(abandoned, /the client went away/);
    assert.deepEqual(waiting, [1, 0]);
    // Its place is free for another at once.
    const next = threads.importFile(ctx.store(), b, fixture('ril_export.html'), 'auto');
    await Promise.all([running, next]);
    assert.deepEqual(await readingListCounts(ctx.store().db, b), { unread: 2, archived: 1 });
  });

  test('a file’s HTML is sanitised entry by entry: 20 MB of Wallabag entries read in a 32 MB thread (issue 33, 11)', async () => {
    // Each entry about 10 KB, mostly a script the sanitiser drops. Read whole before its entries were
    // sanitised, the file took 56 MB of heap (52 was too little); entry by entry, 16 MB is enough.
    const content = `<p>The tide comes in twice a day.</p><script>${'track();'.repeat(1200)}</script>`;
    const file = Buffer.from(
      JSON.stringify(
        Array.from({ length: 2000 }, (_, i) => ({ is_archived: 0, url: `https://s.example/${i}`, content })),
      ),
    );
    const threads = new ImportThreads({ ...IMPORT_THREAD_LIMITS, oldMb: 32 });
    const id = await account();
    const counts = await threads.importFile(ctx.store(), id, file, 'auto');
    assert.deepEqual([counts.format, counts.imported, counts.bad], ['wallabag', 2000, 0]);
  });
});
