import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { subscriptionsByAccount } from '../store/subscriptions.js';
import { hoursAgo, serveFeed } from '../test/feedFixtures.js';
import { FeedServer } from '../test/feedServer.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { runCli } from './run.js';

/**
 * The CLI and the limits of issue 12: an OPML file or a feed past TIDINGS_MAX_OPML_OUTLINES or
 * TIDINGS_MAX_SUBSCRIPTIONS is refused (exit 1, the limit named), and `feed list` shows the items a feed
 * could not queue.
 */

interface Run {
  code: number;
  out: string[];
  err: string[];
}

const opml = (urls: readonly string[]): string =>
  `<?xml version="1.0"?><opml version="2.0"><head><title>t</title></head><body>${urls
    .map((u) => `<outline type="rss" text="${u}" xmlUrl="${u}"/>`)
    .join('')}</body></opml>`;

await describeEachEngine('feed limits in the CLI', (ctx) => {
  let server: FeedServer;
  let dir: string;
  const cli = async (env: NodeJS.ProcessEnv, ...args: string[]): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { DATABASE_URL: ctx.url(), LOG_LEVEL: 'silent', TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true', ...env },
    });
    return { code, out, err };
  };
  const file = async (name: string, urls: readonly string[]): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, opml(urls));
    return path;
  };

  before(async () => {
    server = await FeedServer.start('127.0.0.1');
    dir = await mkdtemp(join(tmpdir(), 'tidings-feed-limits-'));
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('opml import past either limit exits 1 naming it, and imports nothing', async () => {
    const account = await newAccount(ctx.store());
    const id = String(account.id);
    const three = await file(
      'three.opml',
      ['a', 'b', 'c'].map((x) => `https://${x}.example/feed`),
    );

    const tooLong = await cli({ TIDINGS_MAX_OPML_OUTLINES: '2' }, 'opml', 'import', '--account', id, three);
    assert.equal(tooLong.code, 1);
    assert.deepEqual(tooLong.err, [
      'tidings: the file lists 3 feeds; one import may list at most 2 (TIDINGS_MAX_OPML_OUTLINES)',
    ]);
    const tooMany = await cli({ TIDINGS_MAX_SUBSCRIPTIONS: '2' }, 'opml', 'import', '--account', id, three);
    assert.equal(tooMany.code, 1);
    assert.deepEqual(tooMany.err, [
      'tidings: importing would make the account follow 3 feeds (0 now, 3 new in the file); an account may follow at most 2 (TIDINGS_MAX_SUBSCRIPTIONS)',
    ]);
    assert.deepEqual(await subscriptionsByAccount(ctx.store().db, account.id), []);

    const fits = await cli({ TIDINGS_MAX_SUBSCRIPTIONS: '3' }, 'opml', 'import', '--account', id, three);
    assert.equal(fits.code, 0, fits.err.join('\n'));
    const feed = serveFeed(server, '/limits-one-more.xml', { title: 'One more', items: [] });
    const oneMore = await cli({ TIDINGS_MAX_SUBSCRIPTIONS: '3' }, 'feed', 'add', '--account', id, feed.url);
    assert.equal(oneMore.code, 1);
    assert.deepEqual(oneMore.err, [
      'tidings: the account follows 3 feeds, the most it may (TIDINGS_MAX_SUBSCRIPTIONS)',
    ]);
  });

  test('feed list shows how many items a feed could not queue, and why the last one', async () => {
    const feed = serveFeed(server, '/limits-odd.xml', {
      title: 'Odd',
      items: [
        { link: 'https://odd.example/fine', title: 'Fine', published: hoursAgo(1) },
        { link: null, guid: 'no-link', title: 'No link', published: hoursAgo(2) },
      ],
    });
    const id = String((await newAccount(ctx.store())).id);
    assert.equal((await cli({}, 'feed', 'add', '--account', id, feed.url)).code, 0);

    const list = await cli({}, 'feed', 'list', '--account', id);
    const [header, row] = list.out.map((l) => l.split('\t'));
    assert.equal(header?.[8], 'SKIPPED');
    assert.equal(row?.[8], '1 (last: it has no link)');
    const json = await cli({}, 'feed', 'list', '--account', id, '--json');
    const view = JSON.parse(json.out[0] ?? '') as Record<string, unknown>;
    assert.equal(view['skippedItems'], 1);
    assert.equal(view['lastSkipReason'], 'it has no link');
    assert.equal(typeof view['lastSkippedAt'], 'string');
  });
});
