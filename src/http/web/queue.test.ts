import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { addSavedUrl } from '../../queue/add.js';
import { checkItem, enqueue } from '../../queue/enqueue.js';
import { findOrCreateFeed } from '../../store/feeds.js';
import { createSubscription } from '../../store/subscriptions.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';
import { QUEUE_PAGE_SIZE } from './pages/queue.js';

await describeEachEngine('web app: queue page', (ctx) => {
  let app: FastifyInstance;
  let account: { id: number; apiKey: string };
  let client: WebClient;
  const api = async (): Promise<{ url: string; title: string }[]> => {
    const res = await app.inject({ method: 'GET', url: `/api/v1/articles?apiKey=${account.apiKey}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  before(async () => {
    app = webServer(ctx.store(), { queueLimit: 5 });
    await app.ready();
    account = await newAccount(ctx.store());
    client = new WebClient(app);
    await client.signIn(account.apiKey);
  });
  after(() => app.close());

  test('an empty queue says so, with the next digest’s time in the reader’s zone', async () => {
    const res = await client.get('/queue');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Your queue is empty/);
    assert.match(res.body, /is due\s+<time datetime="[^"]+Z"/);
    assert.match(res.body, /\(UTC\)/);
  });

  test('a URL added on the page is in the API’s queue, and the page lists it with its source and age', async () => {
    const before = await api(); // primes the API's cached answer for this queue version
    const add = await client.post('/queue', { url: 'https://example.com/a', title: 'First article' });
    assert.equal(add.statusCode, 303);
    assert.equal(add.headers.location, '/queue?notice=added');
    assert.deepEqual(await api(), [...before, { url: 'https://example.com/a', title: 'First article' }]);
    const page = await client.get('/queue?notice=added');
    assert.match(page.body, /Saved for your next digest/);
    assert.match(
      page.body,
      /<a class="title" href="https:\/\/example.com\/a" rel="noopener noreferrer" dir="auto">First article<\/a>/,
    );
    assert.match(page.body, /example\.com · saved\s+<time datetime="[^"]+" title="[^"]+">just now<\/time>/);
    assert.match(page.body, /1 link waits/);
  });

  test('without a title the address is the title; the same URL again updates the title or says it is there', async () => {
    await client.get('/queue');
    await client.post('/queue', { url: 'https://example.com/b', title: '  ' });
    assert.deepEqual((await api()).at(-1), { url: 'https://example.com/b', title: 'https://example.com/b' });
    const again = await client.post('/queue', { url: 'https://example.com/b', title: '' });
    assert.equal(again.headers.location, '/queue?notice=already_queued');
    const renamed = await client.post('/queue', { url: 'https://example.com/b', title: 'B' });
    assert.equal(renamed.headers.location, '/queue?notice=title_updated');
    assert.match((await client.get('/queue?notice=title_updated')).body, /its title is updated/);
  });

  test('refusals are shown in plain words, with what was typed kept in the form', async () => {
    const cases: [Record<string, string>, number, RegExp][] = [
      [{ url: '' }, 400, /Enter the address of the page to save/],
      [{ url: 'ftp://example.com/file' }, 400, /must start with http:\/\/ or https:\/\//],
      [{ url: 'not a url' }, 400, /not the address of a web page/],
      [{ url: `https://example.com/${'x'.repeat(2100)}` }, 400, /too long: at most 2048 characters/],
      [{ url: 'https://example.com/t', title: 'x'.repeat(1001) }, 400, /title is too long/],
    ];
    for (const [fields, status, message] of cases) {
      const res = await client.post('/queue', fields);
      assert.equal(res.statusCode, status, JSON.stringify(fields));
      assert.match(res.body, message);
      assert.match(res.body, /role="alert"/);
      assert.match(res.body, /aria-invalid="true"/);
      if (fields.url === 'ftp://example.com/file')
        assert.match(res.body, /value="ftp:\/\/example.com\/file"/);
    }
    assert.equal((await api()).length, 2, 'nothing was saved');
  });

  test('a full queue is explained; a URL already waiting is still deduplicated', async () => {
    await client.get('/queue');
    for (const n of [1, 2, 3]) await client.post('/queue', { url: `https://example.com/fill/${n}` });
    assert.equal((await api()).length, 5);
    const full = await client.post('/queue', { url: 'https://example.com/one-too-many' });
    assert.equal(full.statusCode, 409);
    assert.match(full.body, /Your queue is full: it holds 5 links/);
    assert.equal((await client.post('/queue', { url: 'https://example.com/a' })).statusCode, 303);
  });

  test('an item from a feed shows the reader’s name for the feed', async () => {
    const reader = await newAccount(ctx.store());
    const at = new Date(Date.now() - 3 * 3600_000).toISOString();
    await ctx
      .store()
      .db.transaction()
      .execute(async (trx) => {
        const feed = await findOrCreateFeed(trx, {
          url: 'https://feeds.example/rss',
          title: 'Feed title',
          siteUrl: null,
          at,
        });
        await createSubscription(trx, reader.id, { feedId: feed.id, title: 'My <own> name', at });
        await enqueue(
          trx,
          reader.id,
          [
            checkItem({
              url: 'https://feeds.example/post',
              title: 'A post',
              source: 'feed',
              feedId: feed.id,
            }),
          ],
          { engine: ctx.engine, limit: 10 },
        );
      });
    await sql`update queue_items set created_at = ${at} where account_id = ${reader.id}`.execute(
      ctx.store().db,
    );
    const viewer = new WebClient(app);
    await viewer.signIn(reader.apiKey);
    const page = await viewer.get('/queue');
    assert.match(
      page.body,
      /feeds\.example · from My &lt;own&gt; name, queued\s+<time[^>]*>3 hours ago<\/time>/,
    );
  });

  test('titles and URLs are escaped: markup in a saved link is shown as text', async () => {
    const other = await newAccount(ctx.store());
    await addSavedUrl(
      ctx.store(),
      other.id,
      {
        url: 'https://example.com/?q="><script>alert(1)</script>',
        title: '<img src=x onerror=alert(1)>',
        source: 'api',
      },
      { limit: 10 },
    );
    const viewer = new WebClient(app);
    await viewer.signIn(other.apiKey);
    const page = await viewer.get('/queue');
    assert.doesNotMatch(page.body, /<script>alert|<img src=x/);
    assert.match(page.body, /&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.match(page.body, /href="https:\/\/example.com\/\?q=&quot;&gt;&lt;script&gt;/);
  });

  test('Remove offers Undo: a form with the session token that puts the link back with its title', async () => {
    const reader = await newAccount(ctx.store());
    const browser = new WebClient(app);
    await browser.signIn(reader.apiKey);
    await addSavedUrl(
      ctx.store(),
      reader.id,
      { url: 'https://undo.example/a', title: 'Kept title', source: 'api' },
      { limit: 5 },
    );
    const id = /action="\/queue\/(\d+)\/remove"/.exec((await browser.get('/queue')).body)?.[1];
    const res = await browser.post(`/queue/${id ?? ''}/remove`);
    assert.equal(
      res.headers.location,
      '/queue?notice=removed&removed=https%3A%2F%2Fundo.example%2Fa&removed_title=Kept%20title',
    );
    const offered = (await browser.get(res.headers.location ?? '')).body;
    assert.match(
      offered,
      /Removed <span dir="auto">Kept title<\/span>\.\s*<button class="quiet" type="submit">Undo<\/button>/,
    );
    assert.match(offered, /<input type="hidden" name="url" value="https:\/\/undo\.example\/a" \/>/);
    assert.match(offered, /<input type="hidden" name="title" value="Kept title" \/>/);
    assert.equal(
      (
        await browser.post('/queue', {
          url: 'https://undo.example/a',
          title: 'Kept title',
          undo: '1',
          _csrf: 'wrong',
        })
      ).statusCode,
      403,
    );
    const undone = await browser.post('/queue', {
      url: 'https://undo.example/a',
      title: 'Kept title',
      undo: '1',
    });
    assert.equal(undone.headers.location, '/queue?notice=restored');
    const listed = await app.inject({ method: 'GET', url: `/api?api_key=${reader.apiKey}` });
    assert.deepEqual(listed.json(), [{ url: 'https://undo.example/a', title: 'Kept title' }]);
  });

  test('removing an item takes it out of the API’s queue at once (its cached answer included)', async () => {
    const page = await client.get('/queue');
    const id = /action="\/queue\/(\d+)\/remove"/.exec(page.body)?.[1];
    assert.ok(id !== undefined);
    const before = await api();
    const res = await client.post(`/queue/${id}/remove`);
    assert.equal(res.statusCode, 303);
    assert.equal(
      res.headers.location,
      '/queue?notice=removed&removed=https%3A%2F%2Fexample.com%2Fa&removed_title=First%20article',
    );
    const now = await api();
    assert.equal(now.length, before.length - 1);
    assert.deepEqual(now, before.slice(1), 'the oldest item went');
    assert.match((await client.get('/queue?notice=removed')).body, /Removed from your queue/);
    // Removing it again: it is not there any more.
    const again = await client.post(`/queue/${id}/remove`);
    assert.equal(again.statusCode, 404);
    assert.match(again.body, /not in your queue/);
  });

  test('forms without the session’s token change nothing', async () => {
    const before = await api();
    const page = await client.get('/queue');
    const id = /action="\/queue\/(\d+)\/remove"/.exec(page.body)?.[1] ?? '0';
    for (const token of [null, '', 'x'.repeat(43)]) {
      const add = await client.post('/queue', { url: 'https://example.com/csrf', _csrf: token });
      assert.equal(add.statusCode, 403);
      assert.match(String(add.headers['content-type']), /^text\/html/);
      assert.equal((await client.post(`/queue/${id}/remove`, { _csrf: token })).statusCode, 403);
    }
    // Another session's token is not this one's.
    const other = new WebClient(app);
    await other.signIn(account.apiKey);
    assert.notEqual(other.csrf, client.csrf);
    assert.equal(
      (await client.post('/queue', { url: 'https://example.com/csrf', _csrf: other.csrf })).statusCode,
      403,
    );
    // A JSON body is not a form: no token, refused.
    const json = await app.inject({
      method: 'POST',
      url: '/queue',
      headers: { cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}` },
      payload: { url: 'https://example.com/csrf', _csrf: client.csrf },
    });
    assert.equal(json.statusCode, 403);
    assert.deepEqual(await api(), before);
  });

  test('a long queue is shown a page at a time, split where the next digest ends', async () => {
    const big = await newAccount(ctx.store());
    await sql`update accounts set digest_max_items = 150 where id = ${big.id}`.execute(ctx.store().db);
    for (let i = 0; i < 230; i++) {
      await addSavedUrl(
        ctx.store(),
        big.id,
        { url: `https://example.com/n/${i}`, title: `Item ${i}`, source: 'api' },
        { limit: 1000 },
      );
    }
    const reader = new WebClient(app);
    await reader.signIn(big.apiKey);
    const first = await reader.get('/queue');
    assert.match(first.body, /230 links wait/);
    assert.match(first.body, /the oldest 150 \(your maximum\)/);
    assert.equal(first.body.match(/class="title"/g)?.length, QUEUE_PAGE_SIZE);
    assert.match(first.body, /href="\/queue\?start=100"/);
    const second = await reader.get('/queue?start=100');
    assert.match(
      second.body,
      /In your next digest[\s\S]*Item 100[\s\S]*Item 149[\s\S]*Waiting for a later digest[\s\S]*Item 150/,
    );
    assert.match(second.body, /<ol class="items" start="151">/);
  });
});
