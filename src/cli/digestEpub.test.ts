import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strFromU8, unzipSync } from 'fflate';
import { buildDigestNow } from '../digest/build.js';
import { saveUrl, testDigestDeps } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { runCli } from './run.js';

/** `tidings digest epub ID > file.epub`: the operator's copy of any digest, as the download gives it. */
await describeEachEngine('cli digest epub', (ctx) => {
  const cli = async (...args: string[]): Promise<{ code: number; bytes: Uint8Array[]; err: string[] }> => {
    const bytes: Uint8Array[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: () => assert.fail('the file goes out as bytes, not lines'),
      err: (l) => err.push(l),
      outBytes: (data) => bytes.push(data),
      env: { DATABASE_URL: ctx.url(), TIDINGS_BASE_URL: 'https://tidings.example' },
    });
    return { code, bytes, err };
  };

  test('writes the EPUB to stdout and names it on stderr; an unknown digest is an error', async () => {
    const { id } = await newAccount(ctx.store());
    await saveUrl(ctx.store(), id, 'https://example.org/cli', 'Read from the command line');
    const built = await buildDigestNow(testDigestDeps(ctx.store()), id);
    assert.equal(built.status, 'built');
    const r = await cli('digest', 'epub', String(built.digestId));
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.equal(r.bytes.length, 1);
    const files = unzipSync(r.bytes[0] ?? new Uint8Array());
    assert.equal(strFromU8(files.mimetype ?? new Uint8Array()), 'application/epub+zip');
    assert.ok(strFromU8(files['EPUB/s1-1.xhtml'] ?? new Uint8Array()).includes('Read from the command line'));
    assert.match(r.err.join('\n'), /^tidings-\d{4}-\d\d-\d\d\.epub: \d+ bytes$/);

    const missing = await cli('digest', 'epub', '999999');
    assert.notEqual(missing.code, 0);
    assert.equal(missing.bytes.length, 0);
    assert.match(missing.err.join('\n'), /no digest 999999/);
  });
});
