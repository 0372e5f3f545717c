/**
 * The EPUB download is made off the event loop (digest/epub/builds.ts): while a large digest's book
 * (100 chapters of 128 KB of HTML) is being made, /healthz and an API save are answered
 * first; the file is the one package.ts makes of the same book. A request that finds the one build's turn
 * taken and no waiting place gets 503 with Retry-After (JSON, or a page for a browser); a build whose
 * thread passes its limit gets a 500 that says so, and the server goes on. The OPDS catalogue's and the
 * wallabag API's EPUBs are refused by the same rule (http/errors.ts), each in its transport's shape. Both
 * engines.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { unzipSync } from 'fflate';
import { createApiClient } from '../accounts/apiClients.js';
import { newOpdsLink } from '../accounts/opds.js';
import { operatorSetPassword } from '../accounts/passwords.js';
import { BUILDS, EpubBuilds } from '../digest/epub/builds.js';
import { digestEpub } from '../digest/epub/load.js';
import { epubBytes } from '../digest/epub/package.js';
import { EMAIL_ITEMS } from '../digest/limits.js';
import { ensureDigestToken } from '../digest/token.js';
import { MAX_HTML_CHARS } from '../articles/html.js';
import { insertLargeDigest } from '../test/bigDigest.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { insertPage } from '../test/pages.js';
import { addReadingItems } from '../test/readingFixtures.js';

/**
 * A quarter of MAX_HTML_CHARS of article HTML (paragraphs, a list, a table, a quote): 12.8 MB for the
 * digest, seconds of CPU to make; the whole 512 KB made the test take minutes on a shared machine.
 */
function articleHtml(n: number): string {
  const block =
    `<h2>Part of article ${n}</h2><p>Councillors voted on Thursday night, and the <em>tram line</em> ` +
    `is <a href="https://example.org/more">to be built</a> by 2030.</p><ul><li>one</li><li>two</li></ul>` +
    `<table><tr><td>a</td><td>b</td></tr></table><blockquote><p>A quote &amp; more.</p></blockquote>`;
  return block.repeat(Math.floor(MAX_HTML_CHARS / 4 / block.length));
}

await describeEachEngine('a digest’s EPUB made in a thread', (ctx) => {
  const apps: FastifyInstance[] = [];
  const builds: EpubBuilds[] = [];
  let path = '';
  let opdsPath = '';
  let entryId = 0;
  let clientCredentials = { client_id: '', client_secret: '', username: '', password: 'a long password' };
  let apiKey = '';
  let accountId = 0;
  let digestId = 0;

  before(async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    accountId = account.id;
    apiKey = account.apiKey;
    digestId = await insertLargeDigest(store, account.id, EMAIL_ITEMS);
    const items = await store.db
      .selectFrom('digest_items')
      .select(['id', 'url'])
      .where('digest_id', '=', digestId)
      .execute();
    for (const [n, item] of items.entries()) {
      const pageId = await insertPage(store, { url: item.url, title: `Article ${n}`, html: articleHtml(n) });
      await store.db.updateTable('digest_items').set({ page_id: pageId }).where('id', '=', item.id).execute();
    }
    path = `/digests/${digestId}/epub?token=${(await ensureDigestToken(store.db, account.id)) ?? ''}`;
    const catalogue = new URL((await newOpdsLink(store, account.id, 'http://127.0.0.1:8080')) ?? '');
    opdsPath = `/opds/digests/${digestId}.epub${catalogue.search}`;
    [entryId = 0] = await addReadingItems(store, account.id, [
      { url: 'https://example.org/long-read', savedAt: '2026-11-01T08:00:00.000Z', html: articleHtml(0) },
    ]);
    await operatorSetPassword(store, account.id, clientCredentials.password, new Date());
    const made = await createApiClient(store, account.id, 'e-reader', new Date());
    const name = await store.db
      .selectFrom('accounts')
      .select('name')
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    clientCredentials = {
      ...clientCredentials,
      client_id: made?.client.client_id ?? '',
      client_secret: made?.clientSecret ?? '',
      username: name.name,
    };
  });
  after(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await Promise.all(builds.map((b) => b.close()));
  });

  const serverWith = (options: Partial<typeof BUILDS>): { app: FastifyInstance; epubs: EpubBuilds } => {
    // The time limit is tested on its own (20 ms below); elsewhere a build gets time no busy machine
    // uses up (the large digest's build took over 60 s at load 15 in issue 33's loaded run, and failed).
    const epubs = new EpubBuilds({ ...BUILDS, limits: { ...BUILDS.limits, timeMs: 600_000 }, ...options });
    const app = testServer(ctx.store(), { epubBuilds: epubs });
    apps.push(app);
    builds.push(epubs);
    return { app, epubs };
  };
  const until = async (what: () => boolean): Promise<void> => {
    while (!what()) await new Promise((r) => setTimeout(r, 2));
  };

  test('other requests are answered while a large digest’s EPUB is made; the file is package.ts’s', async () => {
    const { app, epubs } = serverWith({});
    const order: string[] = [];
    const download = app.inject({ method: 'GET', url: path }).then((res) => {
      order.push('epub');
      return res;
    });
    await until(() => epubs.building === 1);
    const health = await app.inject({ method: 'GET', url: '/healthz' });
    order.push('healthz');
    const save = await app.inject({
      method: 'POST',
      url: `/api/v1/articles?apiKey=${apiKey}`,
      payload: { url: 'https://example.com/saved-while-building', title: 'Saved meanwhile' },
    });
    order.push('save');
    const res = await download;
    assert.equal(health.statusCode, 200);
    assert.ok(save.statusCode < 300, save.body);
    assert.deepEqual(order, ['healthz', 'save', 'epub'], 'answered before the build completed');

    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/epub+zip');
    const files = unzipSync(res.rawPayload);
    const chapters = Object.keys(files).filter((n) => /^EPUB\/s\d+-\d+\.xhtml$/.test(n));
    assert.equal(chapters.length, EMAIL_ITEMS);
    // The same digest made on this thread, as before the thread: the same bytes.
    const here = await digestEpub(ctx.store().db, accountId, digestId, 'http://127.0.0.1:8080', {
      builds: epubs,
    });
    assert.ok(here !== null);
    assert.deepEqual(res.rawPayload, Buffer.from(epubBytes(here.book)));
  });

  test('no turn and no waiting place: 503 with Retry-After, JSON or a page; the turn is freed', async () => {
    const { app, epubs } = serverWith({ size: 1, waiting: 0, retryAfterSeconds: 9 });
    const first = app.inject({ method: 'GET', url: path });
    await until(() => epubs.building === 1);
    const busy = await app.inject({ method: 'GET', url: path });
    assert.equal(busy.statusCode, 503);
    assert.equal(busy.headers['retry-after'], '9');
    const body = busy.json<{ code: number; message: string }>();
    assert.equal(body.code, 50301);
    assert.match(body.message, /making other EPUBs right now; try again in 9 seconds/);
    const page = await app.inject({ method: 'GET', url: path, headers: { accept: 'text/html' } });
    assert.equal(page.statusCode, 503);
    assert.equal(page.headers['retry-after'], '9');
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /making other EPUBs right now; try again in 9 seconds/);
    assert.equal((await first).statusCode, 200, 'the build that had the turn is not disturbed');
    assert.equal(epubs.building, 0, 'the turn is free again');
  });

  test('a build past its limit: 500 saying so, and the server goes on', async () => {
    const { app } = serverWith({ limits: { ...BUILDS.limits, timeMs: 20 } });
    const res: LightMyRequestResponse = await app.inject({ method: 'GET', url: path });
    assert.equal(res.statusCode, 500);
    const body = res.json<{ code: number; message: string }>();
    assert.equal(body.code, 50001);
    assert.match(body.message, /EPUB could not be made \(making the EPUB took more than 0\.02 s\)/);
    const page = await app.inject({ method: 'GET', url: path, headers: { accept: 'text/html' } });
    assert.equal(page.statusCode, 500);
    assert.match(page.body, /EPUB could not be made/);
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  });

  test('the OPDS catalogue and wallabag’s export.epub refused by the same rule, each in its own shape', async () => {
    const { app, epubs } = serverWith({ size: 1, waiting: 0, retryAfterSeconds: 9 });
    const grant = await app.inject({
      method: 'POST',
      url: '/oauth/v2/token',
      payload: { grant_type: 'password', ...clientCredentials },
    });
    assert.equal(grant.statusCode, 200, grant.body);
    const bearer = `Bearer ${grant.json<{ access_token: string }>().access_token}`;
    const first = app.inject({ method: 'GET', url: path });
    await until(() => epubs.building === 1);

    const opds = await app.inject({ method: 'GET', url: opdsPath });
    assert.equal(opds.statusCode, 503);
    assert.equal(opds.headers['retry-after'], '9');
    const opdsBody = opds.json<{ code: number; message: string }>();
    assert.equal(opdsBody.code, 50301);
    assert.match(opdsBody.message, /making other EPUBs right now; try again in 9 seconds/);

    const wallabag = await app.inject({
      method: 'GET',
      url: `/api/entries/${entryId}/export.epub`,
      headers: { authorization: bearer },
    });
    assert.equal(wallabag.statusCode, 503);
    assert.equal(wallabag.headers['retry-after'], '9');
    const { error } = wallabag.json<{ error: { code: number; message: string } }>();
    assert.equal(error.code, 503, 'wallabag’s shape: the HTTP status as the code');
    assert.match(error.message, /making other EPUBs right now; try again in 9 seconds/);

    assert.equal((await first).statusCode, 200);
    // With the turn free, the entry's book is made (the digest's again would take as long as the first).
    const book = await app.inject({
      method: 'GET',
      url: `/api/entries/${entryId}/export.epub`,
      headers: { authorization: bearer },
    });
    assert.equal(book.statusCode, 200);
    assert.equal(book.headers['content-type'], 'application/epub+zip');
  });

  test('a build past its limit in the OPDS catalogue: the same 500 as the digest’s download', async () => {
    const { app } = serverWith({ limits: { ...BUILDS.limits, timeMs: 20 } });
    const res = await app.inject({ method: 'GET', url: opdsPath });
    assert.equal(res.statusCode, 500);
    const body = res.json<{ code: number; message: string }>();
    assert.equal(body.code, 50001);
    assert.match(body.message, /EPUB could not be made \(making the EPUB took more than 0\.02 s\)/);
  });
});
