import assert from 'node:assert/strict';
import { type TestContext, describe, test } from 'node:test';
import fc from 'fast-check';
import { FeedServer, type Handler } from '../../test/feedServer.js';
import {
  COMMON_FEED_PATHS,
  type DiscoverOptions,
  type DiscoveryResult,
  type FeedCandidate,
  MAX_LINKED_CANDIDATES,
  discoverFeeds,
} from './discover.js';
import { feedLinks } from './links.js';

const options: DiscoverOptions = {
  policy: { allowPrivate: true },
  fetchOptions: { connectTimeoutMs: 2000, requestTimeoutMs: 5000 },
};

const rss = (title: string): string =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>${title}</title></channel></rss>`;
const atom = (title: string): string =>
  '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">' +
  `<title>${title}</title><id>urn:test</id><updated>2024-01-01T00:00:00Z</updated></feed>`;
const jsonFeed = (title: string): string =>
  JSON.stringify({ version: 'https://jsonfeed.org/version/1.1', title, items: [] });
const page = (head: string, body = '<p>Hello.</p>'): string =>
  `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>A blog</title>${head}</head><body>${body}</body></html>`;

const send =
  (body: string, type: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': type }).end(body);
  };
const html = (body: string): Handler => send(body, 'text/html; charset=utf-8');
const redirect =
  (status: number, location: string): Handler =>
  (_req, res) => {
    res.writeHead(status, { location }).end();
  };

/** A fixture server of its own for each test: the common paths are probed on the page's origin. */
async function site(t: TestContext, routes: Record<string, Handler>): Promise<FeedServer> {
  const server = await FeedServer.start('127.0.0.1');
  t.after(() => server.close());
  for (const [path, handler] of Object.entries(routes)) server.route(path, handler);
  return server;
}

function candidates(result: DiscoveryResult): FeedCandidate[] {
  assert.ok(result.kind === 'found', result.kind === 'found' ? '' : result.message);
  return result.candidates;
}

const summary = (found: FeedCandidate[]): [string, string, string][] =>
  found.map((c) => [c.url, c.title, c.format]);

const requestedPaths = (server: FeedServer): string[] => server.requests.map((r) => r.path);

describe('discoverFeeds', () => {
  test('a feed URL is its one candidate, and nothing else is fetched', async (t) => {
    const server = await site(t, { '/feed.xml': send(rss('Tea &amp; Biscuits'), 'application/rss+xml') });
    const [only, ...rest] = candidates(await discoverFeeds(server.url('/feed.xml'), options));
    assert.ok(only);
    assert.deepEqual(rest, []);
    assert.deepEqual([only.url, only.title, only.format], [server.url('/feed.xml'), 'Tea & Biscuits', 'rss']);
    assert.equal(only.feed.title, 'Tea & Biscuits');
    assert.deepEqual(requestedPaths(server), ['/feed.xml']);
  });

  test("a page's RSS and Atom links: both, in document order, with the feeds' own titles", async (t) => {
    const head = [
      '<link rel="stylesheet" href="/style.css">',
      "<LINK REL='Alternate' TYPE='application/atom+xml' HREF=/atom.xml>",
      '<link rel="alternate" hreflang="fr" type="text/html" href="/fr/">',
      '<link href="/rss.xml" title="Link title" type="application/rss+xml; charset=utf-8" rel="home alternate">',
    ].join('\n');
    const server = await site(t, {
      '/': html(page(head)),
      '/atom.xml': send(atom('Atom edition'), 'application/atom+xml'),
      '/rss.xml': send(rss('RSS edition'), 'application/rss+xml'),
    });
    const found = candidates(await discoverFeeds(server.url('/'), options));
    assert.deepEqual(summary(found), [
      [server.url('/atom.xml'), 'Atom edition', 'atom'],
      [server.url('/rss.xml'), 'RSS edition', 'rss'],
    ]);
    assert.deepEqual(requestedPaths(server).sort(), ['/', '/atom.xml', '/rss.xml']);
  });

  test('relative hrefs resolve against the page', async (t) => {
    const head =
      '<link rel="alternate" type="application/rss+xml" href="../../feeds/main.xml">' +
      '<link rel="alternate" type="application/atom+xml" href="comments.xml">';
    const server = await site(t, {
      '/blog/2024/post.html': html(page(head)),
      '/feeds/main.xml': send(rss('Main'), 'application/rss+xml'),
      '/blog/2024/comments.xml': send(atom('Comments'), 'application/atom+xml'),
    });
    const found = candidates(await discoverFeeds(server.url('/blog/2024/post.html'), options));
    assert.deepEqual(
      found.map((c) => c.url),
      [server.url('/feeds/main.xml'), server.url('/blog/2024/comments.xml')],
    );
  });

  test('<base href> applies to every link, those before it included', async (t) => {
    const head =
      '<link rel="alternate" type="application/rss+xml" href="feed.xml">' +
      '<base href="/sub/"><base href="/ignored/">';
    const server = await site(t, {
      '/page/': html(page(head)),
      '/sub/feed.xml': send(rss('Under base'), 'application/rss+xml'),
    });
    const found = candidates(await discoverFeeds(server.url('/page/'), options));
    assert.deepEqual(summary(found), [[server.url('/sub/feed.xml'), 'Under base', 'rss']]);
  });

  test('a link whose target is not a feed (a 404, an HTML page) is dropped', async (t) => {
    const head = ['/missing.xml', '/page.html', '/real.xml']
      .map((href) => `<link rel="alternate" type="application/rss+xml" href="${href}">`)
      .join('');
    const server = await site(t, {
      '/': html(page(head)),
      '/page.html': html(page('')),
      '/real.xml': send(rss('Real'), 'text/xml'),
    });
    const found = candidates(await discoverFeeds(server.url('/'), options));
    assert.deepEqual(summary(found), [[server.url('/real.xml'), 'Real', 'rss']]);
  });

  test('a page with no links: the common paths on its origin; /feed.json answers', async (t) => {
    const server = await site(t, {
      '/blog/': html(page('')),
      '/feed.json': send(jsonFeed('JSON only'), 'application/feed+json'),
    });
    const found = candidates(await discoverFeeds(server.url('/blog/'), options));
    assert.deepEqual(summary(found), [[server.url('/feed.json'), 'JSON only', 'json']]);
    assert.deepEqual(requestedPaths(server).sort(), ['/blog/', ...COMMON_FEED_PATHS].sort());
  });

  test('when every linked feed fails, the common paths are still tried', async (t) => {
    const server = await site(t, {
      '/': html(page('<link rel="alternate" type="application/rss+xml" href="/old-feed.xml">')),
      '/index.xml': send(rss('Hugo'), 'application/rss+xml'),
    });
    const found = candidates(await discoverFeeds(server.url('/'), options));
    assert.deepEqual(summary(found), [[server.url('/index.xml'), 'Hugo', 'rss']]);
  });

  test('nothing anywhere: none, in words that say what was tried', async (t) => {
    const server = await site(t, { '/': html(page('')) });
    const result = await discoverFeeds(server.url('/'), options);
    assert.deepEqual(result, {
      kind: 'none',
      message:
        `no feed found at ${server.url('/')} (the page links to none, and none of ` +
        '/feed, /rss.xml, /atom.xml, /index.xml, /feed.json, /feed.xml, /rss answered with a feed)',
      facts: {
        reason: 'feed_none_found',
        url: server.url('/'),
        links: 0,
        paths: COMMON_FEED_PATHS.join(', '),
      },
    });
  });

  test('none names the first broken link and why it failed', async (t) => {
    const server = await site(t, {
      '/': html(page('<link rel="alternate" type="application/atom+xml" href="/gone.xml">')),
    });
    const result = await discoverFeeds(server.url('/'), options);
    assert.ok(result.kind === 'none', result.kind);
    assert.match(result.message, /the page links to one, which is not a readable feed/);
    assert.ok(result.message.includes(`${server.url('/gone.xml')}: 127.0.0.1:`), result.message);
    assert.match(result.message, /answered 404 Not Found/);
    assert.deepEqual(result.facts, {
      reason: 'feed_none_found',
      url: server.url('/'),
      links: 1,
      paths: COMMON_FEED_PATHS.join(', '),
    });
  });

  test('neither a feed nor HTML: none with the parser’s reason, and no guessing', async (t) => {
    const server = await site(t, { '/notes.txt': send('Just some notes.', 'text/plain') });
    const result = await discoverFeeds(server.url('/notes.txt'), options);
    assert.ok(result.kind === 'none', result.kind);
    assert.match(result.message, /is not a feed \(not a feed: no XML element found\), nor a web page/);
    assert.deepEqual(result.facts, { reason: 'feed_not_feed', url: server.url('/notes.txt') });
    assert.deepEqual(requestedPaths(server), ['/notes.txt']);
  });

  test("a page that answers 404 is an error in the fetcher's words", async (t) => {
    const server = await site(t, {});
    const result = await discoverFeeds(server.url('/nowhere'), options);
    assert.ok(result.kind === 'error', result.kind);
    assert.match(result.message, /^127\.0\.0\.1:\d+ answered 404 Not Found$/);
  });

  test('a redirected page: its links resolve against where it landed', async (t) => {
    const server = await site(t, {
      '/old': redirect(301, '/new/'),
      '/new/': html(page('<link rel="alternate" type="application/rss+xml" href="feed.xml">')),
      '/new/feed.xml': send(rss('Moved blog'), 'application/rss+xml'),
    });
    const found = candidates(await discoverFeeds(server.url('/old'), options));
    assert.deepEqual(summary(found), [[server.url('/new/feed.xml'), 'Moved blog', 'rss']]);
  });

  test('a feed moved for good is offered at its new URL; one moved for now, at the old', async (t) => {
    const server = await site(t, {
      '/moved.xml': redirect(301, '/new.xml'),
      '/new.xml': send(rss('Moved'), 'application/rss+xml'),
      '/elsewhere.xml': redirect(302, '/today.xml'),
      '/today.xml': send(rss('Today'), 'application/rss+xml'),
    });
    const moved = candidates(await discoverFeeds(server.url('/moved.xml'), options));
    assert.deepEqual(summary(moved), [[server.url('/new.xml'), 'Moved', 'rss']]);
    const elsewhere = candidates(await discoverFeeds(server.url('/elsewhere.xml'), options));
    assert.deepEqual(summary(elsewhere), [[server.url('/elsewhere.xml'), 'Today', 'rss']]);
  });

  test('at most 10 linked candidates are fetched, each URL once', async (t) => {
    const hrefs = Array.from({ length: 12 }, (_, i) => `/feeds/${i}.xml`);
    const head = [...hrefs, hrefs[0] ?? '']
      .map((href) => `<link rel="alternate" type="application/rss+xml" href="${href}">`)
      .join('');
    const server = await site(t, { '/': html(page(head)) });
    for (const [i, href] of hrefs.entries())
      server.route(href, send(rss(`Feed ${i}`), 'application/rss+xml'));
    const found = candidates(await discoverFeeds(server.url('/'), options));
    assert.equal(found.length, MAX_LINKED_CANDIDATES);
    assert.deepEqual(
      found.map((c) => c.title),
      hrefs.slice(0, MAX_LINKED_CANDIDATES).map((_, i) => `Feed ${i}`),
    );
    assert.equal(server.requests.length, 1 + MAX_LINKED_CANDIDATES);
  });

  test('application/json alternates are fetched only when they look like a feed', async (t) => {
    const head =
      '<link rel="alternate" type="application/json" href="/wp-json/wp/v2/pages/2">' +
      '<link rel="alternate" type="application/json" title="JSON Feed" href="/posts.json">';
    const server = await site(t, {
      '/': html(page(head)),
      '/posts.json': send(jsonFeed('Posts'), 'application/json'),
    });
    const found = candidates(await discoverFeeds(server.url('/'), options));
    assert.deepEqual(summary(found), [[server.url('/posts.json'), 'Posts', 'json']]);
    assert.deepEqual(server.requestsFor('/wp-json/wp/v2/pages/2'), []);
  });

  test('the whole discovery ends at its deadline, however many fetches are still waiting', async (t) => {
    const silent: Handler = () => undefined; // answers nothing, ever
    const head = ['/a.xml', '/b.xml', '/c.xml']
      .map((href) => `<link rel="alternate" type="application/rss+xml" href="${href}">`)
      .join('');
    const server = await site(t, {
      '/': html(page(head)),
      '/slow-page': silent,
      ...Object.fromEntries(['/a.xml', '/b.xml', '/c.xml', ...COMMON_FEED_PATHS].map((p) => [p, silent])),
    });
    // Each fetch alone may take 5 s: only the overall deadline ends these in time.
    const quick = { ...options, deadlineMs: 300 };
    // Only the deadline gives this answer (each fetch alone would end after 5 s with another).
    for (const start of ['/', '/slow-page']) {
      const result = await discoverFeeds(server.url(start), quick);
      assert.deepEqual(result, {
        kind: 'error',
        message:
          `looking for a feed at ${server.url(start)} took longer than 300 ms, so Tidings gave up: the site ` +
          'answers too slowly; try again later, or give the address of the feed itself',
        facts: { reason: 'feed_search_slow', url: server.url(start), seconds: 1 },
      });
    }
    // The page and its three links were asked; the deadline came before the common paths.
    assert.deepEqual(requestedPaths(server).sort(), ['/', '/a.xml', '/b.xml', '/c.xml', '/slow-page']);
  });

  test('feeds confirmed by the deadline are offered; the ones cut short are not', async (t) => {
    const head =
      '<link rel="alternate" type="application/rss+xml" href="/slow.xml">' +
      '<link rel="alternate" type="application/atom+xml" href="/fast.xml">';
    const server = await site(t, {
      '/': html(page(head)),
      '/slow.xml': () => undefined,
      '/fast.xml': send(atom('Fast'), 'application/atom+xml'),
    });
    const found = candidates(await discoverFeeds(server.url('/'), { ...options, deadlineMs: 300 }));
    assert.deepEqual(summary(found), [[server.url('/fast.xml'), 'Fast', 'atom']]);
  });

  test('an address that is not one is an error in plain words; one without a scheme is taken for https', async () => {
    assert.deepEqual(await discoverFeeds('  ', options), {
      kind: 'error',
      message: 'no address given: enter the URL of a feed or of a web page',
      facts: { reason: 'feed_address_missing' },
    });
    assert.deepEqual(await discoverFeeds('not a url', options), {
      kind: 'error',
      message: '"not a url" is not a web address',
      facts: { reason: 'feed_address_invalid', typed: 'not a url' },
    });
    // Taken for https://127.0.0.1:9/feed: refused by the policy before any connection, which shows the host.
    const refused = await discoverFeeds('127.0.0.1:9/feed', { policy: { allowPrivate: false } });
    assert.ok(refused.kind === 'error', refused.kind);
    assert.match(refused.message, /^127\.0\.0\.1 is a loopback address/);
    assert.deepEqual(refused.facts, {
      reason: 'feed_unreachable',
      url: 'https://127.0.0.1:9/feed',
      failure: 'private_address',
      status: 0,
    });
  });
});

describe('feedLinks', () => {
  const PAGE = 'https://blog.example/posts/1';
  const urls = (markup: string): string[] => feedLinks(markup, PAGE).map((l) => l.url);

  test('attributes in any order, case and quoting; references decoded; type parameters dropped', () => {
    const links = feedLinks(
      page(
        '<link type="application/RSS+xml;charset=utf-8" title="  Tea &amp;\n Biscuits " rel="alternate" ' +
          'href="/feed?a=1&amp;b=2">' +
          "<link rel = 'ALTERNATE nofollow' href = '/atom' type = application/atom+xml />",
      ),
      PAGE,
    );
    assert.deepEqual(links, [
      { url: 'https://blog.example/feed?a=1&b=2', type: 'application/rss+xml', title: 'Tea & Biscuits' },
      { url: 'https://blog.example/atom', type: 'application/atom+xml', title: '' },
    ]);
  });

  test('what a browser would not see as a head link is ignored', () => {
    const link = (href: string): string => `<link rel="alternate" type="application/rss+xml" href="${href}">`;
    const markup =
      `<!DOCTYPE html><html><head><!-- ${link('/commented')} -->` +
      `<script>document.write('${link('/scripted')}')</script>` +
      `<title>${link('/titled')}</title>` +
      '<link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">' +
      '<link rel="alternate" type="application/rss+xml">' +
      '<link rel="feed" type="application/rss+xml" href="/not-alternate">' +
      `${link('/kept')}</head><body>${link('/in-body')}</body></html>`;
    assert.deepEqual(urls(markup), ['https://blog.example/kept']);
    assert.deepEqual(urls(`<html><head>${link('/a')}<body>${link('/b')}`), ['https://blog.example/a']);
  });

  test('the first of a repeated attribute wins; a tag the text ends inside is dropped, as browsers do', () => {
    assert.deepEqual(urls('<link rel="alternate" type="text/xml" href="/first" href="/second">'), [
      'https://blog.example/first',
    ]);
    const link = (href: string): string => `<link rel=alternate type=application/atom+xml href=${href}`;
    assert.deepEqual(urls(`<head>${link('/whole')}>${link('/cut')}`), ['https://blog.example/whole']);
  });

  test('any text, however broken: no exception, and only absolute http(s) URLs come out', () => {
    const piece = fc.constantFrom(
      ...['<', '>', '/', '=', '"', "'", ' ', '\n', '<!--', '-->', '<!', '&amp;', '&', 'a', '</'],
      ...[
        'link',
        'LINK',
        'rel',
        'alternate',
        'type',
        'application/rss+xml',
        'href',
        'base',
        'head',
        'script',
      ],
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), (pieces) => {
        for (const link of feedLinks(pieces.join(''), PAGE)) assert.match(link.url, /^https?:\/\//);
      }),
      { numRuns: 2000 },
    );
  });
});
