import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { deleteAllFeeds, hoursAgo, queueUrls, serveFeed } from '../test/feedFixtures.js';
import { FeedServer } from '../test/feedServer.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { runCli } from './run.js';

/** `feed add` says what subscribing queued, or why nothing was. */

const post = (slug: string, published: Date) => ({
  link: `https://cli.example/${slug}`,
  title: slug,
  published,
});

await describeEachEngine('feed add: what was queued', (ctx) => {
  let server: FeedServer;
  let path = 0;
  const nextPath = (): string => `/queued-${++path}.xml`;
  const cli = async (...args: string[]): Promise<{ out: string[] }> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { DATABASE_URL: ctx.url(), LOG_LEVEL: 'silent', TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    assert.equal(code, 0, err.join('\n'));
    return { out };
  };
  const ok = (r: { out: string[] }) => r;
  const account = async (): Promise<string> => String((await newAccount(ctx.store())).id);

  before(async () => {
    server = await FeedServer.start('127.0.0.1');
  });
  after(() => server.close());
  beforeEach(() => deleteAllFeeds(ctx.store()));

  test("a feed whose items are all old: nothing queued, said plainly with the newest item's date", async () => {
    const old = new Date('2024-03-12T10:00:00.000Z');
    const feed = serveFeed(server, nextPath(), {
      title: 'Quiet feed',
      items: [post('old-1', old), post('old-2', new Date('2024-02-01T10:00:00.000Z'))],
    });
    const id = await account();
    const r = ok(await cli('feed', 'add', '--account', id, feed.url, '--json'));
    const line = JSON.parse(r.out[0] ?? '') as { queued: number; newestItemAt: string | null };
    assert.deepEqual([line.queued, line.newestItemAt], [0, old.toISOString()]);
    assert.deepEqual(await queueUrls(ctx.store(), Number(id)), []);

    const recent = serveFeed(server, nextPath(), {
      title: 'Busy feed',
      items: [post('new-1', hoursAgo(1)), post('new-2', hoursAgo(3)), post('new-3', hoursAgo(5))],
    });
    const text = ok(await cli('feed', 'add', '--account', id, recent.url));
    assert.equal(text.out[1], 'Queued 3 items published in the last day.');
    await deleteAllFeeds(ctx.store());
    const quiet = ok(await cli('feed', 'add', '--account', id, feed.url));
    assert.equal(
      quiet.out[1],
      'Nothing queued: the newest item is from 12 March 2024; new items will come to your queue as they are published.',
    );
  });
});
