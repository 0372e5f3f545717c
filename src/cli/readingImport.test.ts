import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readingListCounts } from '../store/readingList.js';
import { cliOn } from '../test/cliRun.js';
import { describeEachEngine, newAccount } from '../test/harness.js';

const testdata = (name: string) => fileURLToPath(new URL(`../imports/testdata/${name}`, import.meta.url));

await describeEachEngine('tidings import', (ctx) => {
  const cli = cliOn(() => ctx.url(), { TIDINGS_BASE_URL: 'https://tidings.example' });

  test('--json prints one line of the counts; the text names them and the bad rows', async () => {
    const { id } = await newAccount(ctx.store());
    const json = await cli('import', '--account', String(id), testdata('pocket.csv'), '--json');
    assert.equal(json.code, 0, json.err.join('\n'));
    assert.equal(json.out.length, 1);
    const counts = JSON.parse(json.out[0] ?? '') as Record<string, unknown>;
    assert.deepEqual(Object.keys(counts), [
      'format',
      'rows',
      'imported',
      'merged',
      'duplicates',
      'bad',
      'badExamples',
    ]);
    assert.deepEqual([counts.format, counts.imported, counts.bad], ['pocket', 3, 2]);
    const text = await cli('import', '--account', String(id), testdata('pocket.csv'), '--format', 'pocket');
    assert.equal(text.code, 0);
    assert.match(
      text.out.join('\n'),
      /Imported 0 links from a pocket export of 6 rows .*3 already there \(merged\), 1 duplicates within the file, 2 bad rows skipped/,
    );
    // In the file's order (issue 33, 10).
    assert.deepEqual(text.err, [
      'skipped line 5: url must use http or https, not javascript',
      'skipped line 6: no url',
    ]);
    assert.deepEqual(await readingListCounts(ctx.store().db, id), { unread: 1, archived: 2 });
  });

  test('a wrong format, a file of none, a file too large, a missing account or file: exit codes', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-import-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const { id } = await newAccount(ctx.store());
    const wrong = await cli(
      'import',
      '--account',
      String(id),
      testdata('pocket.csv'),
      '--format',
      'wallabag',
    );
    assert.equal(wrong.code, 1);
    assert.match(wrong.err.join('\n'), /looks like a pocket export, not wallabag/);
    const none = join(dir, 'none.txt');
    writeFileSync(none, 'nothing to see\n');
    assert.equal((await cli('import', '--account', String(id), none)).code, 1);
    const big = join(dir, 'big.csv');
    writeFileSync(big, Buffer.alloc(50 * 1024 * 1024 + 1, 0x61));
    const tooBig = await cli('import', '--account', String(id), big);
    assert.equal(tooBig.code, 1);
    assert.match(tooBig.err.join('\n'), /at most 50 MB/);
    assert.equal((await cli('import', '--account', '999999', testdata('pocket.csv'))).code, 1);
    assert.equal((await cli('import', '--account', String(id), join(dir, 'missing.csv'))).code, 1);
    assert.equal((await cli('import', '--account', String(id), none, '--format', 'kindle')).code, 2);
    assert.deepEqual(await readingListCounts(ctx.store().db, id), { unread: 0, archived: 0 });
  });
});
