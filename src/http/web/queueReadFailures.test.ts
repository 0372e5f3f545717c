/**
 * A saved page the reader could not read says so on the queue page, in plain words under its item: why
 * (pages.error), and whether Tidings tries again (issue 33 point 10). Read through the real page reader.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { enrichOnce } from '../../articles/enrich.js';
import { useFeedServer } from '../../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { PAGE_TEST_HOST, pageOf, saveUrl, testReaderDeps } from '../../test/pageFixtures.js';
import { WebClient, webServer } from '../../test/webClient.js';

await describeEachEngine('web app: pages that could not be read, on the queue page', (ctx) => {
  const server = useFeedServer(PAGE_TEST_HOST, (s) => {
    s.route('/missing', (_req, res) => res.writeHead(404).end('not here'));
    s.route('/busy', (_req, res) => res.writeHead(503).end());
    s.route('/fine', (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Fine</title><p>Read at once.</p>'),
    );
  });
  let app: FastifyInstance;
  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
  });
  after(() => app.close());

  test('a page given up and a page to be tried again each say why; a read page says nothing', async () => {
    const account = await newAccount(ctx.store());
    for (const path of ['/missing', '/busy', '/fine'])
      await saveUrl(ctx.store(), account.id, server().url(path), `Title of ${path}`);
    const summary = await enrichOnce(testReaderDeps(ctx.store()), { accountId: account.id });
    assert.deepEqual([summary.failed, summary.retried, summary.read], [1, 1, 1]);
    const missing = await pageOf(ctx.store(), account.id, server().url('/missing'));
    const busy = await pageOf(ctx.store(), account.id, server().url('/busy'));
    assert.ok(missing.error !== null && busy.error !== null);

    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    const res = await client.get('/queue');
    assert.equal(res.statusCode, 200);
    const rows = res.body.split('<li>').slice(1);
    const rowOf = (path: string): string => rows.find((r) => r.includes(`Title of ${path}`)) ?? '';
    const escaped = (text: string): string =>
      text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    assert.ok(
      rowOf('/missing').includes(
        `Tidings could not read this page: ${escaped(missing.error)}. Tidings has stopped trying.`,
      ),
      rowOf('/missing'),
    );
    assert.ok(
      rowOf('/busy').includes(
        `Tidings could not read this page: ${escaped(busy.error)}. Tidings tries again later.`,
      ),
      rowOf('/busy'),
    );
    assert.notEqual(rowOf('/fine'), '');
    assert.doesNotMatch(rowOf('/fine'), /could not read/);
  });
});
