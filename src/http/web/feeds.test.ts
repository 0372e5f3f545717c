import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { subscriptionsByAccount } from '../../store/subscriptions.js';
import { importSubscriptions } from '../../accounts/opml.js';
import { hoursAgo, serveFeed, testRefreshDeps, useFeedServer } from '../../test/feedFixtures.js';
import { closedPort } from '../../test/feedServer.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

const OPML = `<?xml version="1.0"?><opml version="2.0"><head><title>mine</title></head><body>
  <outline text="Tech"><outline type="rss" text="Imported one" xmlUrl="https://one.example/feed.xml" htmlUrl="https://one.example/"/></outline>
  <outline type="rss" text="Imported two" xmlUrl="https://two.example/rss"/>
  <outline type="rss" text="Broken" xmlUrl="ftp://three.example/rss"/>
</body></opml>`;

await describeEachEngine('web app: feeds page', (ctx) => {
  const server = useFeedServer('127.0.0.1', (s) => {
    serveFeed(s, '/news.xml', {
      title: 'Loopback News',
      items: [
        { link: 'https://news.example/a', title: 'Fresh story', published: hoursAgo(2) },
        { link: 'https://news.example/b', title: 'Old story', published: hoursAgo(100) },
      ],
    });
    serveFeed(s, '/comments.xml', { title: 'Loopback Comments', items: [] });
    s.route('/blog', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<!doctype html><title>Blog</title>' +
          '<link rel="alternate" type="application/rss+xml" title="Posts" href="/news.xml">' +
          '<link rel="alternate" type="application/rss+xml" title="Comments" href="/comments.xml">',
      );
    });
    s.route('/single', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><link rel="alternate" type="application/rss+xml" href="/news.xml">');
    });
  });
  let app: FastifyInstance;
  let account: { id: number; apiKey: string };
  let client: WebClient;
  const queue = async (): Promise<{ url: string; title: string }[]> =>
    (await app.inject({ method: 'GET', url: `/api?api_key=${account.apiKey}` })).json();
  const subs = () => subscriptionsByAccount(ctx.store().db, account.id);

  before(async () => {
    app = webServer(ctx.store(), { allowPrivateNetworks: true });
    await app.ready();
    account = await newAccount(ctx.store());
    client = new WebClient(app);
    await client.signIn(account.apiKey);
  });
  after(() => app.close());

  test('following a feed by its address queues its recent items and lists it with its status', async () => {
    await client.get('/feeds');
    const res = await client.post('/feeds', { url: server().url('/news.xml'), title: 'My news' });
    assert.equal(res.statusCode, 303, res.body);
    assert.match(res.headers.location ?? '', /^\/feeds\?notice=added&queued=1&newest=\d{4}-/);
    assert.deepEqual(await queue(), [{ url: 'https://news.example/a', title: 'Fresh story' }]);
    const page = await client.get(res.headers.location ?? '');
    assert.match(page.body, /Subscribed\. Queued 1 item published in the last day\./);
    assert.match(
      page.body,
      /<a class="title" href="https:\/\/site.example\/" rel="noopener noreferrer" dir="auto"\s*>My news<\/a/,
    );
    assert.match(page.body, /Fetched\s+<time[^>]*>just now<\/time>/);
    assert.match(page.body, /next fetch\s+<time[^>]*>in \d+ (minute|hour)s?<\/time>/);
    assert.match(page.body, /2 items seen/);
    const again = await client.post('/feeds', { url: server().url('/news.xml') });
    assert.equal(again.headers.location, '/feeds?notice=already');
  });

  test("a feed whose items are all old: the page says nothing was queued, and the newest item's day", async () => {
    server().route('/old.xml', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/rss+xml' });
      res.end(
        '<rss version="2.0"><channel><title>Old news</title>' +
          '<item><title>Long ago</title><link>https://old.example/1</link>' +
          '<pubDate>Tue, 12 Mar 2024 10:00:00 GMT</pubDate></item></channel></rss>',
      );
    });
    await client.get('/feeds');
    const before = await queue();
    const res = await client.post('/feeds', { url: server().url('/old.xml') });
    assert.equal(res.headers.location, '/feeds?notice=added&queued=0&newest=2024-03-12T10%3A00%3A00.000Z');
    assert.deepEqual(await queue(), before);
    const page = await client.get(res.headers.location ?? '');
    assert.match(
      page.body,
      /Subscribed\. Nothing queued: the newest item is from 12 March 2024; new items will come to your queue as they are published\./,
    );
    assert.doesNotMatch(page.body, /in the last day is in your queue/);
    // A hand-made address says no more than it can know.
    const made = await client.get('/feeds?notice=added&queued=x&newest=%3Cb%3E');
    assert.match(made.body, /Subscribed\. Nothing queued: the feed has no dated items yet/);
    const id = (await subs()).find((s) => s.url === server().url('/old.xml'))?.id;
    await client.post(`/feeds/${String(id)}/remove`);
  });

  test('a page that links to one feed is followed directly; one with several offers the choice', async () => {
    await client.post('/feeds/' + String((await subs())[0]?.id) + '/remove');
    const fetchedBefore = server().requestsFor('/news.xml').length;
    const single = await client.post('/feeds', { url: server().url('/single') });
    assert.match(single.headers.location ?? '', /^\/feeds\?notice=added&queued=\d&newest=/);
    // Read once by discovery and once by the first fetch, which stores it: not discovered a second time.
    assert.equal(server().requestsFor('/news.xml').length - fetchedBefore, 2);
    assert.deepEqual(
      (await subs()).map((s) => s.url),
      [server().url('/news.xml')],
    );

    await client.get('/feeds');
    const choice = await client.post('/feeds', { url: server().url('/blog'), include: 'story' });
    assert.equal(choice.statusCode, 200);
    assert.match(choice.body, /offers 2 feeds/);
    assert.match(choice.body, /type="radio"\s+name="url"\s+value="http:\/\/127\.0\.0\.1:\d+\/news\.xml"/);
    assert.match(choice.body, /name="include" value="story"/);
    assert.equal((await subs()).length, 1, 'nothing subscribed before the choice');
    const chosen = await client.post('/feeds', {
      url: server().url('/comments.xml'),
      chosen: '1',
      title: '',
      include: 'story',
      exclude: '',
    });
    // An empty feed: nothing queued, and nothing to date.
    assert.equal(chosen.headers.location, '/feeds?notice=added&queued=0');
    const said = await client.get(chosen.headers.location ?? '');
    assert.match(
      said.body,
      /Subscribed\. Nothing queued: the feed has no dated items yet; new items will come/,
    );
    const comments = (await subs()).find((s) => s.url === server().url('/comments.xml'));
    assert.equal(comments?.includeFilter, 'story');
  });

  test('what cannot be followed is explained in plain words, the form kept', async () => {
    await client.get('/feeds');
    const cases: [Record<string, string>, RegExp][] = [
      [{ url: '' }, /Enter the address of a feed/],
      [{ url: server().url('/missing') }, /404/],
      [{ url: server().url('/news.xml'), include: '/(unclosed/' }, /Filters: /],
    ];
    for (const [fields, message] of cases) {
      const res = await client.post('/feeds', fields);
      assert.equal(res.statusCode, 400, JSON.stringify(fields));
      assert.match(res.body, message);
      assert.match(res.body, /role="alert"/);
    }
    const port = await closedPort('127.0.0.1');
    const refused = await client.post('/feeds', { url: `http://127.0.0.1:${port}/feed`, title: 'Kept' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /value="Kept"/);
  });

  test('without TIDINGS_ALLOW_PRIVATE_NETWORKS a feed on a private address is refused', async () => {
    const strict = webServer(ctx.store());
    try {
      const reader = new WebClient(strict);
      await reader.signIn(account.apiKey);
      const res = await reader.post('/feeds', { url: server().url('/news.xml') });
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /private|loopback|local/i);
    } finally {
      await strict.close();
    }
  });

  test('rename, change filters, unsubscribe (queued items stay)', async () => {
    const sub = (await subs()).find((s) => s.url === server().url('/news.xml'));
    assert.ok(sub !== undefined);
    await client.get('/feeds');
    assert.equal((await client.post(`/feeds/${sub.id}/rename`, { title: 'Renamed feed' })).statusCode, 303);
    assert.match((await client.get('/feeds?notice=renamed')).body, /Renamed feed/);
    assert.equal((await client.post(`/feeds/${sub.id}/rename`, { title: '' })).statusCode, 303);
    assert.equal(
      (await subs()).find((s) => s.id === sub.id)?.title,
      'Loopback News',
      'empty: the feed’s own',
    );

    const bad = await client.post(`/feeds/${sub.id}/filters`, { include: '/(/', exclude: '' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /Filters: /);
    const ok = await client.post(`/feeds/${sub.id}/filters`, {
      include: 'rust, "type systems"',
      exclude: 'ads',
    });
    assert.equal(ok.headers.location, '/feeds?notice=filtered');
    const filtered = (await subs()).find((s) => s.id === sub.id);
    assert.deepEqual([filtered?.includeFilter, filtered?.excludeFilter], ['rust, "type systems"', 'ads']);
    assert.match((await client.get('/feeds')).body, /Filters: only items matching rust/);

    // The toggle says its state, then what the button does.
    assert.match(
      (await client.get('/feeds')).body,
      /Reading the original pages: <strong>off<\/strong><\/span\s*>\s*—\s*<button[^>]*aria-label="Turn on reading the original pages of [^"]+"\s*>\s*Turn on\s*<\/button>/,
    );
    const on = await client.post(`/feeds/${sub.id}/original`, { fetch_original: 'true' });
    assert.equal(on.headers.location, '/feeds?notice=original');
    assert.equal((await subs()).find((s) => s.id === sub.id)?.fetchOriginal, true);
    const shown = (await client.get('/feeds?notice=original')).body;
    assert.match(shown, /The pages of its items are read too\./);
    assert.match(
      shown,
      /Reading the original pages: <strong>on<\/strong><\/span\s*>\s*—\s*<button[^>]*aria-label="Turn off reading the original pages of [^"]+"\s*>\s*Turn off\s*<\/button>/,
    );
    const off = await client.post(`/feeds/${sub.id}/original`, { fetch_original: 'false' });
    assert.equal(off.headers.location, '/feeds?notice=feedonly');
    assert.equal((await subs()).find((s) => s.id === sub.id)?.fetchOriginal, false);
    assert.equal((await client.post('/feeds/999999/original', { fetch_original: 'true' })).statusCode, 404);

    const queued = await queue();
    const removed = await client.post(`/feeds/${sub.id}/remove`);
    assert.equal(removed.headers.location, '/feeds?notice=removed');
    assert.equal(
      (await subs()).some((s) => s.id === sub.id),
      false,
    );
    assert.deepEqual(await queue(), queued);
    assert.equal((await client.post(`/feeds/${sub.id}/remove`)).statusCode, 404);
  });

  test('items the feed could not queue are counted on it; following past the limit is refused, named', async () => {
    const odd = serveFeed(server(), '/odd.xml', {
      title: 'Odd items',
      items: [
        { link: 'https://odd.example/fine', title: 'Fine', published: hoursAgo(1) },
        { link: null, guid: 'no-link', title: 'No link', published: hoursAgo(2) },
      ],
    });
    const limited = webServer(ctx.store(), { allowPrivateNetworks: true, maxSubscriptions: 1 });
    try {
      const reader = new WebClient(limited);
      await reader.signIn((await newAccount(ctx.store())).apiKey);
      await reader.get('/feeds');
      assert.match(
        (await reader.post('/feeds', { url: odd.url })).headers.location ?? '',
        /notice=added&queued=1&/,
      );
      const page = (await reader.get('/feeds')).body;
      assert.match(
        page,
        /1 item not queued; the last\s+<time[^>]*>just now<\/time>\s+because\s+it has no link\./,
      );

      const refused = await reader.post('/feeds', { url: server().url('/news.xml'), title: 'One more' });
      assert.equal(refused.statusCode, 400);
      assert.match(
        refused.body,
        /The account follows 1 feed, the most it may \(TIDINGS_MAX_SUBSCRIPTIONS\)\./,
      );
      assert.match(refused.body, /value="One more"/);
    } finally {
      await limited.close();
    }
  });

  test('a page lists 100 feeds, with links to the others', async () => {
    const many = await newAccount(ctx.store());
    const outlines = Array.from({ length: 150 }, (_, i) => ({
      url: `https://many${i}.example/feed`,
      title: `Many ${String(i).padStart(3, '0')}`,
      htmlUrl: null,
      folder: null,
    }));
    await importSubscriptions(testRefreshDeps(ctx.store()), many.id, outlines);
    const reader = new WebClient(app);
    await reader.signIn(many.apiKey);
    const first = (await reader.get('/feeds')).body;
    assert.match(first, /Following 150/);
    assert.match(first, /Feeds 1–100 of 150/);
    assert.match(first, /Many 099/);
    assert.doesNotMatch(first, /Many 100/);
    assert.match(first, /<a href="\/feeds\?start=100">Later feeds<\/a>/);
    const second = (await reader.get('/feeds?start=100')).body;
    assert.match(second, /Feeds 101–150 of 150/);
    assert.match(second, /Many 100/);
    assert.match(second, /<a href="\/feeds\?start=0">Earlier feeds<\/a>/);
    assert.doesNotMatch(second, /Later feeds/);
  });

  test('OPML: import an uploaded file (folders and titles kept), export a download', async () => {
    await client.get('/feeds');
    const boundary = '----tidings';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${client.csrf}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="opml"; filename="feeds.opml"\r\n` +
      `Content-Type: text/x-opml\r\n\r\n${OPML}\r\n--${boundary}--\r\n`;
    const post = (payload: string) =>
      app.inject({
        method: 'POST',
        url: '/feeds/import',
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}`,
        },
        payload,
      });
    const res = await post(body);
    // A feed was refused: the Feeds page answers at once, naming it and why.
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /Imported 2 feeds \(0 you already followed, 1 refused\)/);
    assert.match(res.body, /<li><span class="mono">ftp:\/\/three\.example\/rss<\/span>: /);
    assert.equal((await client.get('/feeds/import')).headers.location, '/feeds');
    const one = (await subs()).find((s) => s.url === 'https://one.example/feed.xml');
    assert.deepEqual([one?.title, one?.folder], ['Imported one', 'Tech']);

    assert.equal((await post(body.replace(client.csrf, 'x'.repeat(43)))).statusCode, 403);
    const notOpml = await post(body.replace(OPML, 'hello'));
    assert.equal(notOpml.statusCode, 400);
    assert.match(notOpml.body, /cannot be imported/);

    // Without a session the upload is refused before its body is read.
    const anonymous = await app.inject({
      method: 'POST',
      url: '/feeds/import',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: body.replace(OPML, 'x'.repeat(1024 * 1024)),
    });
    assert.equal(anonymous.statusCode, 303);
    assert.equal(anonymous.headers.location, '/sign-in?notice=ended');

    const exported = await client.get('/feeds/export.opml');
    assert.equal(exported.statusCode, 200);
    assert.match(
      String(exported.headers['content-disposition']),
      /attachment; filename="tidings-feeds.opml"/,
    );
    assert.match(exported.body, /<outline text="Tech"[\s\S]*xmlUrl="https:\/\/one.example\/feed.xml"/);
  });
});
