import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { parseOpml } from '../feeds/subscribe/opmlRead.js';
import { feedByUrl } from '../store/feeds.js';
import { subscriptionsByAccount } from '../store/subscriptions.js';
import { deleteAllFeeds, hoursAgo, queueRows, queueUrls, serveFeed } from '../test/feedFixtures.js';
import { FeedServer } from '../test/feedServer.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { runCli } from './run.js';

/** The feed commands, run in-process as `tidings …` would run them. */

interface Run {
  code: number;
  out: string[];
  err: string[];
}

const post = (slug: string, published: Date, title = slug) => ({
  link: `https://cli.example/${slug}`,
  title,
  published,
});

await describeEachEngine('feed commands', (ctx) => {
  let server: FeedServer;
  let dir: string;
  let path = 0;
  const nextPath = (): string => `/cli-${++path}.xml`;

  const run = async (env: NodeJS.ProcessEnv, args: string[]): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { DATABASE_URL: ctx.url(), LOG_LEVEL: 'silent', ...env },
    });
    return { code, out, err };
  };
  /** With TIDINGS_ALLOW_PRIVATE_NETWORKS=true: the fixture server is on this machine. */
  const cli = (...args: string[]): Promise<Run> => run({ TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true' }, args);
  const ok = (r: Run): Run => {
    assert.equal(r.code, 0, r.err.join('\n'));
    return r;
  };
  const account = async (): Promise<string> => String((await newAccount(ctx.store())).id);

  before(async () => {
    server = await FeedServer.start('127.0.0.1');
    dir = await mkdtemp(join(tmpdir(), 'tidings-feed-cli-'));
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => deleteAllFeeds(ctx.store()));

  test('feed add --json prints exactly {"id", "url", "title", "queued", "newestItemAt"} and queues the recent items', async () => {
    const newest = hoursAgo(1);
    const feed = serveFeed(server, nextPath(), {
      title: 'CLI feed',
      items: [post('recent', newest), post('old', hoursAgo(72))],
    });
    const id = await account();
    const r = ok(await cli('feed', 'add', '--account', id, feed.url, '--json'));
    assert.equal(r.out.length, 1);
    const line = JSON.parse(r.out[0] ?? '') as { id: number; url: string; title: string; queued: number };
    assert.deepEqual(Object.keys(line), ['id', 'url', 'title', 'queued', 'newestItemAt']);
    assert.equal(typeof line.id, 'number');
    assert.equal(line.url, feed.url);
    assert.equal(line.title, 'CLI feed');
    assert.equal(line.queued, 1);
    // RSS dates are to the second.
    assert.deepEqual(line, {
      ...line,
      newestItemAt: new Date(Math.floor(newest.getTime() / 1000) * 1000).toISOString(),
    });
    const [sub] = await subscriptionsByAccount(ctx.store().db, Number(id));
    assert.equal(sub?.id, line.id);
    assert.deepEqual(await queueUrls(ctx.store(), Number(id)), ['https://cli.example/recent']);

    const again = ok(await cli('feed', 'add', '--account', id, feed.url, '--title', 'Mine'));
    assert.match(
      again.out.join('\n'),
      /^Already subscribed to CLI feed <http:\/\/127\.0\.0\.1:\d+\/cli-\d+\.xml> \(id \d+\)\.$/,
    );
  });

  test('a web page URL resolves to the feed its <link rel="alternate"> names', async () => {
    const feed = serveFeed(server, '/blog/feed.xml', { title: 'The blog', items: [post('b1', hoursAgo(2))] });
    const page = server.route('/blog/', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<!doctype html><html><head><title>Blog</title>' +
          '<link rel="alternate" type="application/rss+xml" title="Posts" href="feed.xml"></head><body>Hi</body></html>',
      );
    });
    const id = await account();
    const r = ok(await cli('feed', 'add', '--account', id, page, '--json'));
    const line = JSON.parse(r.out[0] ?? '') as { newestItemAt: string };
    assert.deepEqual(line, {
      id: (await subscriptionsByAccount(ctx.store().db, Number(id)))[0]?.id,
      url: feed.url,
      title: 'The blog',
      queued: 1,
      newestItemAt: line.newestItemAt,
    });
    assert.deepEqual(await queueUrls(ctx.store(), Number(id)), ['https://cli.example/b1']);
  });

  test('feed list says when a feed was read leniently (not well-formed XML)', async () => {
    const path = nextPath();
    server.route(path, (_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/rss+xml' })
        .end(
          `<rss version="2.0"><channel><title>Caf&eacute;</title><item><title>A&nbsp;B</title>` +
            `<link>https://cli.example/l1?a=1&b=2</link></item></channel></rss`,
        );
    });
    const id = await account();
    ok(await cli('feed', 'add', '--account', id, server.url(path)));
    const list = ok(await cli('feed', 'list', '--account', id));
    const [, row] = list.out.map((l) => l.split('\t'));
    assert.deepEqual([row?.[1], row?.[6], row?.[9]], ['Café', 'ok', 'yes']);
  });

  test('feed list shows last fetch, next fetch, item count and the error of a failing feed', async () => {
    const good = serveFeed(server, nextPath(), {
      title: 'Good',
      items: [post('g1', hoursAgo(1)), post('g2', hoursAgo(2)), post('g3', hoursAgo(3))],
    });
    let failing = false;
    const flakyPath = nextPath();
    const flaky = serveFeed(server, `${flakyPath}.ok`, { title: 'Flaky', items: [post('f1', hoursAgo(1))] });
    server.route(flakyPath, (req, res) => {
      if (failing) res.writeHead(500).end();
      else res.writeHead(302, { location: flaky.path }).end();
    });
    const id = await account();
    ok(await cli('feed', 'add', '--account', id, good.url));
    ok(await cli('feed', 'add', '--account', id, server.url(flakyPath)));
    failing = true;
    const polled = ok(await cli('poll', '--once', '--all'));
    assert.match(
      polled.out.join('\n'),
      /^Fetched 2 feeds: 1 updated, 0 unchanged, 1 failed, 0 gone; 0 new items, 0 queued\.$/,
    );

    const list = ok(await cli('feed', 'list', '--account', id));
    const [header, ...rows] = list.out.map((l) => l.split('\t'));
    assert.deepEqual(header, [
      'ID',
      'TITLE',
      'URL',
      'LAST FETCH',
      'NEXT FETCH',
      'ITEMS',
      'STATUS',
      'ORIGINAL',
      'SKIPPED',
      'LENIENT',
      'PER DIGEST',
      'PRIORITY',
      'MUTED UNTIL',
    ]);
    assert.equal(rows.length, 2);
    const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
    const [goodRow, flakyRow] = rows;
    assert.ok(goodRow && flakyRow);
    assert.deepEqual(
      [goodRow[1], goodRow[2], goodRow[5], goodRow[6], goodRow[8], goodRow[9]],
      ['Good', good.url, '3', 'ok', '0', 'no'],
    );
    assert.deepEqual([flakyRow[1], flakyRow[2], flakyRow[5]], ['Flaky', server.url(flakyPath), '1']);
    assert.match(flakyRow[6] ?? '', /^127\.0\.0\.1:\d+ answered 500 Internal Server Error$/);
    for (const row of rows) {
      assert.match(row[3] ?? '', iso);
      assert.match(row[4] ?? '', iso);
      assert.ok(Date.parse(row[4] ?? '') > Date.now(), 'the next fetch is ahead');
    }

    const json = ok(await cli('feed', 'list', '--account', id, '--json'));
    const views = json.out.map((l) => JSON.parse(l) as { lastError: string | null; itemCount: number });
    assert.deepEqual(
      views.map((v) => [v.itemCount, v.lastError === null]),
      [
        [3, true],
        [1, false],
      ],
    );

    const empty = ok(await cli('feed', 'list', '--account', await account()));
    assert.match(empty.out.join('\n'), /follows no feeds yet/);
  });

  test('feed remove unsubscribes; a feed nobody follows any more is deleted, its queued items stay', async () => {
    const feed = serveFeed(server, nextPath(), { title: 'Shared', items: [post('s1', hoursAgo(1))] });
    const ada = await account();
    const bob = await account();
    const adaSub = JSON.parse(
      ok(await cli('feed', 'add', '--account', ada, feed.url, '--json')).out[0] ?? '',
    ) as {
      id: number;
    };
    const bobSub = JSON.parse(
      ok(await cli('feed', 'add', '--account', bob, feed.url, '--json')).out[0] ?? '',
    ) as {
      id: number;
    };

    // Nobody else's subscription can be removed through another account.
    const wrong = await cli('feed', 'remove', '--account', ada, String(bobSub.id));
    assert.equal(wrong.code, 1);
    assert.match(wrong.err.join('\n'), new RegExp(`account ${ada} has no feed subscription ${bobSub.id}`));

    const removed = ok(await cli('feed', 'remove', '--account', ada, String(adaSub.id)));
    assert.deepEqual(removed.out, [`Removed feed subscription ${adaSub.id} of account ${ada}.`]);
    assert.deepEqual(await subscriptionsByAccount(ctx.store().db, Number(ada)), []);
    assert.notEqual(await feedByUrl(ctx.store().db, feed.url), null, 'bob still follows it');

    ok(await cli('feed', 'remove', '--account', bob, String(bobSub.id)));
    assert.equal(await feedByUrl(ctx.store().db, feed.url), null);
    const kept = await queueRows(ctx.store(), Number(bob));
    assert.deepEqual(
      kept.map((r) => [r.url, r.source, r.feed_id]),
      [['https://cli.example/s1', 'feed', null]],
    );
    assert.equal((await cli('feed', 'remove', '--account', bob, String(bobSub.id))).code, 1);
  });

  test('feed filter sets, validates and clears the filters that decide what is queued', async () => {
    const feed = serveFeed(server, nextPath(), {
      title: 'Fruit',
      items: [post('apple', hoursAgo(1), 'Apple pie')],
    });
    const id = await account();
    const sub = JSON.parse(
      ok(await cli('feed', 'add', '--account', id, feed.url, '--json')).out[0] ?? '',
    ) as {
      id: number;
    };
    const set = ok(
      await cli('feed', 'filter', '--account', id, String(sub.id), '--include', 'kiwi, /^fig\\b/'),
    );
    assert.deepEqual(set.out, [
      `Filters of subscription ${sub.id}: include kiwi, /^fig\\b/; exclude (none).`,
    ]);
    const bad = await cli('feed', 'filter', '--account', id, String(sub.id), '--exclude', '/(/');
    assert.equal(bad.code, 2);
    assert.match(bad.err.join('\n'), /not a valid regular expression \/\(\//);
    // A back-reference (which a backtracking engine may take minutes on) is refused in words that say why.
    const slow = await cli('feed', 'filter', '--account', id, String(sub.id), '--exclude', '/(a+)\\1$/');
    assert.equal(slow.code, 2);
    assert.deepEqual(slow.err, [
      'tidings: not a valid regular expression /(a+)\\1$/: invalid escape sequence: `\\1` (filters run RE2 ' +
        'syntax, in time linear in the text: no look-arounds such as (?=…) or (?<=…), no back-references such as \\1)',
    ]);
    const refused = await cli('feed', 'add', '--account', id, feed.url, '--include', '/(?=fig)f/');
    assert.equal(refused.code, 2, 'a bad filter is a usage error for feed add as for feed filter');
    assert.match(refused.err.join('\n'), /^tidings: not a valid regular expression \/\(\?=fig\)f\/: /);

    feed.items.unshift(
      post('kiwi', new Date(), 'Kiwi tart'),
      post('fig', new Date(), 'Fig jam'),
      post('plum', new Date(), 'Plum cake'),
    );
    ok(await cli('poll', '--once', '--all'));
    assert.deepEqual((await queueUrls(ctx.store(), Number(id))).sort(), [
      'https://cli.example/apple',
      'https://cli.example/fig',
      'https://cli.example/kiwi',
    ]);

    const cleared = ok(await cli('feed', 'filter', '--account', id, String(sub.id), '--include', ''));
    assert.deepEqual(cleared.out, [`Filters of subscription ${sub.id}: include (all); exclude (none).`]);
    const missing = await cli('feed', 'filter', '--account', id, '99999', '--include', 'x');
    assert.equal(missing.code, 1);
    assert.match(missing.err.join('\n'), /has no feed subscription 99999/);
  });

  test('poll --once --all --json prints one summary line', async () => {
    const feed = serveFeed(server, nextPath(), { title: 'Polled', items: [post('p1', hoursAgo(1))] });
    const id = await account();
    ok(await cli('feed', 'add', '--account', id, feed.url));
    feed.items.unshift(post('p2', new Date()));
    const r = ok(await cli('poll', '--once', '--all', '--json'));
    assert.equal(r.out.length, 1);
    assert.deepEqual(JSON.parse(r.out[0] ?? ''), {
      feeds: 1,
      updated: 1,
      notModified: 0,
      errors: 0,
      gone: 0,
      newItems: 1,
      queued: 1,
    });
    // Without --all only what is due: nothing, right after a fetch.
    const due = ok(await cli('poll', '--json'));
    assert.equal((JSON.parse(due.out[0] ?? '') as { feeds: number }).feeds, 0);
  });

  test('opml import with nested folders, then opml export, round-trips URLs, titles and folders', async () => {
    const urls = [nextPath(), nextPath(), nextPath(), nextPath()].map((p) => server.url(p));
    const opml = `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head><title>From another reader</title></head>
  <body>
    <outline text="Top &amp; level" type="rss" xmlUrl="${urls[0]}" htmlUrl="https://top.example/"/>
    <outline text="Tech">
      <outline text="Web">
        <outline text="Web feed" type="rss" xmlUrl="${urls[1]}" htmlUrl="javascript:alert(1)"/>
      </outline>
      <outline text="Tech feed" type="rss" xmlUrl="${urls[2]}"/>
    </outline>
    <outline text="News"><outline text="Daily" xmlUrl="${urls[3]}"/></outline>
    <outline text="Not a feed" xmlUrl="ftp://files.example/feed"/>
  </body>
</opml>`;
    const file = join(dir, 'subscriptions.opml');
    await writeFile(file, opml);
    const id = await account();

    const imported = ok(await cli('opml', 'import', '--account', id, file));
    assert.match(imported.out.join('\n'), /^Imported 4 feeds \(0 already followed, 1 refused\)/);
    assert.match(imported.err.join('\n'), /^refused ftp:\/\/files\.example\/feed: not an http\(s\) feed URL/);
    const twice = ok(await cli('opml', 'import', '--account', id, file));
    assert.match(twice.out.join('\n'), /^Imported 0 feeds \(4 already followed, 1 refused\)/);

    const exported = ok(await cli('opml', 'export', '--account', id));
    const text = exported.out.join('\n');
    assert.match(text, /^<\?xml version="1\.0" encoding="UTF-8"\?>/);
    const pick = (o: { url: string; title: string; folder: string | null }) => [o.url, o.title, o.folder];
    const original = parseOpml(opml).filter((o) => o.url.startsWith('http'));
    assert.deepEqual(parseOpml(text).map(pick), original.map(pick));
    assert.deepEqual(
      original.map((o) => o.folder),
      [null, 'Tech / Web', 'Tech', 'News'],
    );
    assert.deepEqual(
      parseOpml(text).map((o) => o.htmlUrl),
      ['https://top.example/', null, null, null],
    );
  });

  test('errors are clear and exit non-zero: no such account, a bad URL, a private address', async () => {
    const id = await account();
    const feed = serveFeed(server, nextPath(), { title: 'Private', items: [post('x', hoursAgo(1))] });

    const noAccount = await cli('feed', 'add', '--account', '99999', feed.url);
    assert.equal(noAccount.code, 1);
    assert.deepEqual(noAccount.err, ['tidings: no account 99999']);
    for (const args of [
      ['feed', 'list', '--account', '99999'],
      ['opml', 'export', '--account', '99999'],
    ]) {
      const r = await cli(...args);
      assert.equal(r.code, 1, args.join(' '));
      assert.deepEqual(r.err, ['tidings: no account 99999']);
    }

    const badUrl = await cli('feed', 'add', '--account', id, 'not a url');
    assert.equal(badUrl.code, 1);
    assert.deepEqual(badUrl.err, ['tidings: "not a url" is not a web address']);
    const badId = await cli('feed', 'add', '--account', 'me', feed.url);
    assert.equal(badId.code, 2);
    assert.match(badId.err.join('\n'), /--account must be a positive whole number, not "me"/);

    const refused = await run({}, ['feed', 'add', '--account', id, feed.url]);
    assert.equal(refused.code, 1);
    assert.match(refused.err.join('\n'), /^tidings: 127\.0\.0\.1 is a loopback address \(this machine\)/);
    assert.match(refused.err.join('\n'), /TIDINGS_ALLOW_PRIVATE_NETWORKS=true/);
    assert.equal(feed.requests().length, 0);
    assert.deepEqual(await subscriptionsByAccount(ctx.store().db, Number(id)), []);

    const missingFile = await cli('opml', 'import', '--account', id, join(dir, 'nope.opml'));
    assert.equal(missingFile.code, 1);
    assert.match(missingFile.err.join('\n'), /cannot read .*nope\.opml: ENOENT/);
    const notOpml = join(dir, 'not.opml');
    await writeFile(notOpml, '<rss version="2.0"><channel/></rss>');
    const wrongFile = await cli('opml', 'import', '--account', id, notOpml);
    assert.equal(wrongFile.code, 1);
    assert.match(wrongFile.err.join('\n'), /not an OPML file: the document is <rss>/);
  });
});
