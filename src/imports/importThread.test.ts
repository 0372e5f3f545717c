import assert from 'node:assert/strict';
import { test } from 'node:test';
import { operatorAccount } from '../accounts/authorize.js';
import { isTidingsError } from '../errors.js';
import { readingListCounts } from '../store/readingList.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { importReadingList } from './importLinks.js';
import { IMPORT_THREAD_LIMITS, ImportThreads } from './importThread.js';
import { fixture, omnivoreZip } from './testdata/fixtures.js';

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
});
