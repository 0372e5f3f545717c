import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildDigestNow } from '../digest/build.js';
import { saveUrl, testDigestDeps } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { runCli } from './run.js';

/** `tidings account feed-url --account ID [--rotate]`, run in-process, and the URLs it prints served. */

const BASE = 'http://127.0.0.1:8080';

interface Run {
  code: number;
  out: string[];
  err: string[];
}

await describeEachEngine('account feed-url', (ctx) => {
  let app: FastifyInstance;
  before(() => {
    app = testServer(ctx.store());
  });
  after(() => app.close());

  const cli = async (...args: string[]): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { DATABASE_URL: ctx.url(), LOG_LEVEL: 'silent', TIDINGS_BASE_URL: BASE },
    });
    return { code, out, err };
  };
  const feedUrl = async (...args: string[]): Promise<string> => {
    const r = await cli('account', 'feed-url', ...args);
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.equal(r.out.length, 1, 'one line: the URL alone');
    return r.out[0] ?? '';
  };
  const status = async (url: string): Promise<number> =>
    (await app.inject({ url: url.slice(BASE.length) })).statusCode;

  test('prints the private feed URL; --rotate replaces it and the old one stops working', async () => {
    const { id } = await newAccount(ctx.store());
    await saveUrl(ctx.store(), id, 'https://example.org/a', 'A');
    const built = await buildDigestNow(testDigestDeps(ctx.store()), id);
    assert.equal(built.status, 'built');

    const url = await feedUrl('--account', String(id));
    assert.match(url, /^http:\/\/127\.0\.0\.1:8080\/digests\.atom\?token=[\w-]{43}$/);
    assert.equal(await feedUrl('--account', String(id)), url, 'the same URL until it is rotated');
    assert.equal(await status(url), 200);
    const token = url.split('token=')[1] ?? '';
    const page = `${BASE}/digests/${built.digestId}?token=${token}`;
    assert.equal(await status(page), 200);

    const rotated = await cli('account', 'feed-url', '--account', String(id), '--rotate');
    assert.equal(rotated.code, 0, rotated.err.join('\n'));
    const fresh = rotated.out[0] ?? '';
    assert.deepEqual(rotated.out, [fresh]);
    assert.match(rotated.err.join('\n'), /no longer work/);
    assert.notEqual(fresh, url);
    assert.match(fresh, /\/digests\.atom\?token=[\w-]{43}$/);
    assert.equal(await status(url), 404, 'the old feed URL');
    assert.equal(await status(page), 404, 'the old web link');
    assert.equal(await status(fresh), 200);
    assert.equal(await feedUrl('--account', String(id)), fresh);
  });

  test('an unknown account exits 1, a malformed one 2, and neither gets a token', async () => {
    const missing = await cli('account', 'feed-url', '--account', '999999');
    assert.equal(missing.code, 1);
    assert.match(missing.err.join('\n'), /no account 999999/);
    const rotateMissing = await cli('account', 'feed-url', '--account', '999999', '--rotate');
    assert.equal(rotateMissing.code, 1);
    const bad = await cli('account', 'feed-url', '--account', 'x');
    assert.equal(bad.code, 2);
    const rows = await ctx.store().db.selectFrom('digest_tokens').select('account_id').execute();
    assert.ok(!rows.some((r) => r.account_id === 999_999));
  });
});
