/**
 * The reading view keeps a page's declared writing direction and language (issue 25): a page saying
 * `<html dir="rtl" lang="ar">` whose first words are Latin (ChatGPT…) is shown right to left, where
 * `dir="auto"` would read it left to right; a page declaring nothing is left to `dir="auto"`. Read by the
 * real page reader from a loopback server, on both engines.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { enrichOnce } from '../../articles/enrich.js';
import { useFeedServer } from '../../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { PAGE_TEST_HOST, pageFixture, pageOf, saveUrl, testReaderDeps } from '../../test/pageFixtures.js';
import { WebClient, webServer } from '../../test/webClient.js';
import { insertPage, linkQueuedPage } from '../../test/pages.js';

await describeEachEngine('reading view: the page’s own direction, language and byline', (ctx) => {
  const server = useFeedServer(PAGE_TEST_HOST, (s) => {
    s.route('/ar/model', (_req: unknown, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageFixture('rtl-arabic.html'));
    });
    s.route('/en/plain', (_req: unknown, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageFixture('title-only.html'));
    });
  });
  let app: FastifyInstance;
  let client: WebClient;
  let accountId = 0;

  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
    const account = await newAccount(ctx.store());
    accountId = account.id;
    await saveUrl(ctx.store(), accountId, server().url('/ar/model'));
    await saveUrl(ctx.store(), accountId, server().url('/en/plain'));
    const read = await enrichOnce(testReaderDeps(ctx.store()), { accountId });
    assert.deepEqual([read.read, read.failed], [2, 0]);
    client = new WebClient(app);
    await client.signIn(account.apiKey);
  });
  after(() => app.close());

  test('a right-to-left page is stored as such and shown right to left, in its language', async () => {
    const page = await pageOf(ctx.store(), accountId, server().url('/ar/model'));
    assert.deepEqual([page.direction, page.language], ['rtl', 'ar']);
    const res = await client.get(`/items/${page.id}`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<article class="reader" dir="rtl" lang="ar">/);
    assert.match(res.body, /<h1 dir="rtl">OpenAI تطلق نموذجا جديدا للترجمة<\/h1>/);
    assert.match(res.body, /<div class="text" dir="rtl"><[^>]*>[\s\S]*ChatGPT و Gemini/);
  });

  test('a page that declares no direction is left to the text (dir="auto")', async () => {
    const page = await pageOf(ctx.store(), accountId, server().url('/en/plain'));
    assert.equal(page.direction, null);
    const res = await client.get(`/items/${page.id}`);
    assert.match(res.body, /<article class="reader" dir="auto"/);
    assert.match(res.body, /<h1 dir="auto">/);
  });

  test('a byline read before the rule shows neither the site twice nor a date as the author', async () => {
    const cases = [
      { url: 'https://www.bbc.co.uk/news/1', site_name: 'BBC News', author: 'BBC News' },
      { url: 'https://folha.example/2', site_name: 'Folha', author: '21.dez.2018 às 10h55' },
    ];
    for (const c of cases) {
      await saveUrl(ctx.store(), accountId, c.url);
      const id = await insertPage(ctx.store(), {
        ...c,
        title: 'A story',
        html: '<p>Text.</p>',
        reading_minutes: 2,
      });
      await linkQueuedPage(ctx.store(), accountId, c.url, id);
      const res = await client.get(`/items/${id}`);
      assert.match(res.body, new RegExp(`<p class="byline" dir="auto">${c.site_name} · 2 min read</p>`));
    }
  });
});
