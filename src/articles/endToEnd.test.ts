/**
 * Issue 11 end to end, on both engines: a URL saved through the API with no title is read by the real
 * page reader from a loopback server, and then the next digest email (both parts), the digest's web page
 * and the reading view show the page's real title, site, reading time, description and thumbnail, with a
 * clean link; the API still lists exactly what was saved.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildDigestNow } from '../digest/build.js';
import { deliverDueDigests } from '../digest/deliver.js';
import { digestTokenOf } from '../digest/token.js';
import { useFeedServer } from '../test/feedFixtures.js';
import { RecordingMailer, setEmail, testDigestDeps } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { PAGE_TEST_HOST, pageOf, testReaderDeps } from '../test/pageFixtures.js';
import { enrichOnce } from './enrich.js';

const PARAGRAPH =
  '<p>The harbour wakes before the town does, and the boats go out on the morning tide while the gulls argue over the quay.</p>\n';

const STORY = `<!doctype html>
<html lang="en"><head>
<meta charset="utf-8">
<title>Harbour mornings | The Coastal Gazette</title>
<meta property="og:title" content="Harbour mornings, before the town wakes">
<meta property="og:site_name" content="The Coastal Gazette">
<meta property="og:description" content="How a fishing harbour spends the hour before dawn.">
<meta property="og:image" content="/images/harbour.jpg">
<meta property="og:image:width" content="1200">
<meta property="og:image:height" content="630">
<meta property="og:image:alt" content="Boats at the quay at dawn">
</head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Harbour mornings</h1>${PARAGRAPH.repeat(40)}</article>
<footer>© The Coastal Gazette</footer>
</body></html>`;

/** The page, as a share button links it: with tracking parameters, which the page server must see. */
const PATH = '/2026/harbour-mornings';
const SHARED = `${PATH}?utm_source=newsletter&utm_medium=email&smid=share`;

await describeEachEngine('a saved page, end to end', (ctx) => {
  const server = useFeedServer(PAGE_TEST_HOST, (s) => {
    s.route(SHARED, (_req: unknown, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(STORY);
    });
  });
  let app: FastifyInstance;
  let account: { id: number; apiKey: string };
  let saved = '';
  let listedBefore: unknown;
  let pageId = 0;
  let minutes = 0;
  const mailer = new RecordingMailer();

  before(async () => {
    app = testServer(ctx.store());
    account = await newAccount(ctx.store());
    await setEmail(ctx.store(), account.id, 'reader@example.com');
    saved = server().url(SHARED);
    const post = await app.inject({
      method: 'POST',
      url: `/api?api_key=${account.apiKey}`,
      payload: { url: saved },
    });
    assert.equal(post.statusCode, 200, post.body);
    listedBefore = (await app.inject({ url: `/api/v1/articles?apiKey=${account.apiKey}` })).json();
  });
  after(async () => {
    await app.close();
  });

  test('the reader reads the page once; the API lists exactly what was saved', async () => {
    const summary = await enrichOnce(testReaderDeps(ctx.store()), { accountId: account.id });
    assert.deepEqual([summary.linked, summary.read, summary.failed], [1, 1, 0]);
    assert.equal(server().requestsFor(SHARED).length, 1, 'the page is fetched once, as saved');
    const page = await pageOf(ctx.store(), account.id, saved);
    pageId = page.id;
    minutes = page.reading_minutes;
    assert.deepEqual(
      [page.state, page.title, page.site_name],
      ['read', 'Harbour mornings, before the town wakes', 'The Coastal Gazette'],
    );
    assert.ok(page.reading_minutes >= 1 && page.word_count > 500, String(page.word_count));

    const listed: unknown = (await app.inject({ url: `/api?api_key=${account.apiKey}` })).json();
    assert.deepEqual(listed, listedBefore, 'GET answers {url, title} as stored, before and after');
    assert.deepEqual(
      listed,
      [{ url: saved, title: saved }],
      'the title defaults to the URL, as the spec says',
    );
  });

  test('the next digest email shows the real title, site, reading time, description, thumbnail and a clean link', async () => {
    const deps = testDigestDeps(ctx.store(), { mailer });
    assert.equal((await buildDigestNow(deps, account.id)).status, 'built');
    const delivered = await deliverDueDigests(deps, { accountId: account.id });
    assert.deepEqual(
      delivered.map((d) => d.status),
      ['sent'],
    );
    const message = mailer.sent.at(-1);
    assert.ok(message !== undefined);
    const clean = server().url(PATH);

    assert.match(message.html, />Harbour mornings, before the town wakes</);
    assert.match(message.html, new RegExp(`The Coastal Gazette · ${minutes} min read`));
    assert.match(message.html, /How a fishing harbour spends the hour before dawn\./);
    assert.match(
      message.html,
      /<img[^>]+src="http:\/\/127\.0\.0\.2:\d+\/images\/harbour\.jpg"[^>]*>/,
      'the lead image as a thumbnail',
    );
    const img = /<img[^>]+harbour\.jpg"[^>]*>/.exec(message.html)?.[0] ?? '';
    assert.match(img, /width="\d+"/);
    assert.match(img, /height="\d+"/);
    assert.match(img, /alt="Boats at the quay at dawn"/);
    assert.ok(message.html.includes(`href="${clean}"`), 'the delivered link has no tracking parameters');
    assert.ok(!message.html.includes('utm_source') && !message.html.includes('smid='));
    assert.match(message.html, new RegExp(`/items/${pageId}\\?token=`), 'a private link to the reading view');

    assert.match(message.text, /Harbour mornings, before the town wakes/);
    assert.match(message.text, new RegExp(`The Coastal Gazette · ${minutes} min read`));
    assert.ok(message.text.includes(clean) && !message.text.includes('utm_source'));
  });

  test('the digest web page and the reading view show the page; the reading view under a strict CSP', async () => {
    const token = await digestTokenOf(ctx.store().db, account.id);
    assert.ok(token !== null);
    const digest = await ctx
      .store()
      .db.selectFrom('digests')
      .select('id')
      .where('account_id', '=', account.id)
      .executeTakeFirstOrThrow();
    const web = await app.inject({ url: `/digests/${digest.id}?token=${token}` });
    assert.equal(web.statusCode, 200);
    assert.match(web.body, /Harbour mornings, before the town wakes/);
    assert.match(web.body, /The Coastal Gazette/);

    const reading = await app.inject({ url: `/items/${pageId}?token=${token}` });
    assert.equal(reading.statusCode, 200, reading.body);
    assert.match(reading.body, /<h1[^>]*>Harbour mornings, before the town wakes<\/h1>/);
    assert.match(reading.body, /The harbour wakes before the town does/);
    assert.ok(!/<nav|© The Coastal Gazette/.test(reading.body), 'the main text only, not the page around it');
    assert.match(String(reading.headers['content-security-policy']), /default-src 'none'/);
  });
});
