import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildDigestNow } from '../../digest/build.js';
import { saveUrl, testDigestDeps } from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

await describeEachEngine('web app: search', (ctx) => {
  let app: FastifyInstance;
  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
  });
  after(() => app.close());

  const signedIn = async () => {
    const reader = await newAccount(ctx.store());
    const client = new WebClient(app);
    await client.signIn(reader.apiKey);
    return { reader, client };
  };
  const search = (client: WebClient, q: string, start?: number) =>
    client.get(`/search?q=${encodeURIComponent(q)}${start === undefined ? '' : `&start=${start}`}`);

  test('the Queue, Reading list and Digests pages carry a labelled search box that GETs /search', async () => {
    const { client } = await signedIn();
    for (const path of ['/queue', '/reading-list', '/digests']) {
      const res = await client.get(path);
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /<form class="row search" method="get" action="\/search" role="search">/);
      assert.match(res.body, /<label for="search-q">Search your links<\/label>/);
      assert.match(res.body, /<input\s+id="search-q"\s+name="q"\s+type="search"\s+maxlength="200"/);
    }
    const blank = await client.get('/search');
    assert.equal(blank.statusCode, 200);
    assert.match(
      blank.body,
      /Type a word, or several, to find a link in your queue, in your reading list or in/,
    );
  });

  test('hits show the title marked and escaped, the site, where the link is, the snippet', async () => {
    const { reader, client } = await signedIn();
    const other = await newAccount(ctx.store());
    await saveUrl(ctx.store(), other.id, 'https://tides.example/theirs', 'Their tides');
    await saveUrl(ctx.store(), reader.id, 'https://tides.example/old', 'Old <b>tides</b> & "moons"');
    assert.equal((await buildDigestNow(testDigestDeps(ctx.store()), reader.id)).status, 'built');
    await saveUrl(
      ctx.store(),
      reader.id,
      'https://tides.example/new',
      '<script>alert(1)</script> spring tides',
    );

    const res = await search(client, 'tides');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /2 links found, 1–2 shown,\s+best match first\./);
    assert.ok(!res.body.includes('<script>alert'), 'stored text is escaped');
    assert.ok(!res.body.includes('Their tides'), "another account's link is not shown");
    assert.match(res.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt; spring <mark>tides<\/mark>/);
    assert.match(res.body, /Old &lt;b&gt;<mark>tides<\/mark>&lt;\/b&gt; &amp; &quot;moons&quot;/);
    assert.match(res.body, /tides\.example · Queued/);
    assert.match(
      res.body,
      /tides\.example · In the digest of\s*<a href="http:\/\/[^"]+\/digests\/\d+\?token=[^"]+">\w+day \d+ \w+ \d{4}<\/a>/,
    );
    assert.match(res.body, /value="tides"/, 'the query stays in the box');
  });

  test('an empty result and an invalid query say so; the query is kept', async () => {
    const { reader, client } = await signedIn();
    await saveUrl(ctx.store(), reader.id, 'https://empty.example/', 'Something');
    const none = await search(client, 'pelican "flock');
    assert.equal(none.statusCode, 200);
    // The reading list is searched too, so the words say so.
    assert.match(none.body, /Nothing in your queue, reading list or digests matches “pelican &quot;flock”\./);
    const only = await search(client, '-pelican');
    assert.equal(only.statusCode, 400);
    assert.match(only.body, /<p class="error" role="alert" id="search-error">Add a word to look for/);
    assert.match(only.body, /aria-invalid="true" aria-describedby="search-error"/);
    assert.match(only.body, /value="-pelican"/);
    const long = await search(client, 'x'.repeat(201));
    assert.equal(long.statusCode, 400);
    assert.match(long.body, /A search is at most 200 characters\./);
    const stray = await search(client, 'NEAR( "* : ^');
    assert.ok(stray.statusCode === 200 || stray.statusCode === 400, String(stray.statusCode));
  });

  test('20 hits a page, with links to the next and previous pages', async () => {
    const { reader, client } = await signedIn();
    for (let i = 0; i < 23; i++)
      await saveUrl(ctx.store(), reader.id, `https://paged.example/${i}`, `Heron ${i}`);
    const first = await search(client, 'heron');
    assert.equal((first.body.match(/<a class="title"/g) ?? []).length, 20);
    assert.match(first.body, /<a href="\/search\?q=heron&amp;start=20">More results<\/a>/);
    const second = await search(client, 'heron', 20);
    assert.equal((second.body.match(/<a class="title"/g) ?? []).length, 3);
    assert.match(second.body, /<a href="\/search\?q=heron">Previous results<\/a>/);
    assert.match(second.body, /21–23 of 23/);
  });

  test('signed out, /search asks to sign in', async () => {
    const res = await new WebClient(app).get('/search?q=anything');
    assert.ok(res.statusCode === 303 || res.statusCode === 302, String(res.statusCode));
  });
});
