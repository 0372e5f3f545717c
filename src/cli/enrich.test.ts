import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serveFeed, hoursAgo, useFeedServer } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { saveUrl } from '../test/pageFixtures.js';
import { runCli } from './run.js';

/** `tidings enrich --once [--account] [--json]` and the feed commands' "fetch original content", in-process. */

await describeEachEngine('enrich command', (ctx) => {
  const server = useFeedServer('127.0.0.1', (s) => {
    for (const path of ['/article', '/feed-article']) {
      s.route(path, (_req, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<html lang="en"><title>An article</title><article><p>Words to read.</p></article></html>'),
      );
    }
  });

  const cli = async (...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { DATABASE_URL: ctx.url(), LOG_LEVEL: 'silent', TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    return { code, out, err };
  };

  test('enrich --once --json reads the saved pages and prints one summary line', async () => {
    const account = await newAccount(ctx.store());
    await saveUrl(ctx.store(), account.id, server().url('/article'));
    await saveUrl(ctx.store(), account.id, server().url('/nowhere'));
    const r = await cli('enrich', '--once', '--account', String(account.id), '--json');
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.equal(r.out.length, 1);
    assert.deepEqual(JSON.parse(r.out[0] ?? ''), {
      linked: 2,
      pages: 2,
      read: 1,
      truncated: 0,
      retried: 0,
      failed: 1,
      leaseLost: 0,
      forgotten: 0,
    });
    const again = await cli('enrich', '--account', String(account.id));
    assert.equal(again.code, 0);
    assert.match(again.out.join('\n'), /^Read 0 of 0 pages .*0 items linked/);

    const unknown = await cli('enrich', '--once', '--account', '999999');
    assert.equal(unknown.code, 1);
    const bad = await cli('enrich', '--once', '--account', 'x');
    assert.equal(bad.code, 2);
  });

  test('feed add --fetch-original, feed set --fetch-original true|false, and feed list shows it', async () => {
    const feed = serveFeed(server(), `/feed-${ctx.engine}.xml`, {
      title: 'Originals',
      items: [{ link: server().url('/feed-article'), title: 'Short summary', published: hoursAgo(1) }],
    });
    const id = String((await newAccount(ctx.store())).id);
    const added = await cli('feed', 'add', '--account', id, feed.url, '--fetch-original', '--json');
    assert.equal(added.code, 0, added.err.join('\n'));
    const sub = (JSON.parse(added.out[0] ?? '') as { id: number }).id;
    const listed = async (): Promise<string[]> => {
      const l = await cli('feed', 'list', '--account', id);
      return l.out.slice(1).map((row) => row.split('\t')[7] ?? '');
    };
    assert.deepEqual(await listed(), ['yes']);
    const json = await cli('feed', 'list', '--account', id, '--json');
    assert.equal((JSON.parse(json.out[0] ?? '') as { fetchOriginal: boolean }).fetchOriginal, true);

    // The feed's item is queued (backfill) and, with fetch_original, its page is read.
    const r = await cli('enrich', '--once', '--account', id, '--json');
    const summary = JSON.parse(r.out[0] ?? '') as { linked: number; read: number };
    assert.deepEqual([summary.linked, summary.read], [1, 1]);
    assert.equal(server().requestsFor('/feed-article').length, 1);

    const off = await cli('feed', 'set', '--account', id, String(sub), '--fetch-original', 'false');
    assert.equal(off.code, 0, off.err.join('\n'));
    assert.match(off.out.join('\n'), /feed's text only/);
    assert.deepEqual(await listed(), ['no']);
    const on = await cli('feed', 'set', '--account', id, String(sub), '--fetch-original', 'true');
    assert.equal(on.code, 0);
    assert.deepEqual(await listed(), ['yes']);
    const wrong = await cli('feed', 'set', '--account', id, String(sub), '--fetch-original', 'maybe');
    assert.equal(wrong.code, 2);
    const missing = await cli('feed', 'set', '--account', id, '999999', '--fetch-original', 'true');
    assert.equal(missing.code, 1);
    assert.match(missing.err.join('\n'), /no feed subscription 999999/);
  });
});
