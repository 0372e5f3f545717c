/**
 * Issue 35, point 4: the OPDS catalogue's private link, made by `tidings account opds-url` and under
 * Settings → "E-reader catalogue" (shown once, only its hash stored, a new one ends the old one, revoked),
 * and the reading list's covers (the page's lead image, as a media-proxy link). Both engines.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { runCli } from '../cli/run.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { insertPage } from '../test/pages.js';
import { addReadingItems } from '../test/readingFixtures.js';
import { WebClient, webServer } from '../test/webClient.js';

const BASE = 'http://127.0.0.1:8080';

await describeEachEngine('the OPDS private link', (ctx) => {
  let app: FastifyInstance;
  before(() => {
    app = webServer(ctx.store());
  });
  after(() => app.close());

  const status = async (url: string): Promise<number> =>
    (await app.inject({ url: url.slice(BASE.length) })).statusCode;
  const cli = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { DATABASE_URL: ctx.url(), LOG_LEVEL: 'silent', TIDINGS_BASE_URL: BASE },
    });
    return { code, out, err };
  };

  test('opds-url prints a new link each time, stored only hashed; the previous one stops; --revoke ends it', async () => {
    const { id } = await newAccount(ctx.store());
    const first = await cli('account', 'opds-url', '--account', String(id));
    assert.equal(first.code, 0, first.err.join('\n'));
    assert.equal(first.out.length, 1);
    const url = first.out[0] ?? '';
    assert.match(url, /^http:\/\/127\.0\.0\.1:8080\/opds\?token=[\w-]{43}$/);
    assert.equal(await status(url), 200);
    const token = new URL(url).searchParams.get('token') ?? '';
    const rows = await ctx
      .store()
      .db.selectFrom('opds_tokens')
      .selectAll()
      .where('account_id', '=', id)
      .execute();
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(token), 'the token itself is not stored');

    const second = (await cli('account', 'opds-url', '--account', String(id))).out[0] ?? '';
    assert.notEqual(second, url);
    assert.equal(await status(url), 401);
    assert.equal(await status(second), 200);

    const revoked = await cli('account', 'opds-url', '--account', String(id), '--revoke');
    assert.equal(revoked.code, 0);
    assert.equal(await status(second), 401);
    assert.notEqual((await cli('account', 'opds-url', '--account', '987654')).code, 0, 'no such account');
  });

  test('Settings → E-reader catalogue: the address, a link shown once, a new one, revoked', async () => {
    const { id, apiKey } = await newAccount(ctx.store());
    const web = new WebClient(app);
    await web.signIn(apiKey);
    const settings = await web.get('/settings');
    assert.match(settings.body, /href="\/settings\/e-reader-catalogue"/);
    const pageRes = await web.get('/settings/e-reader-catalogue');
    assert.equal(pageRes.statusCode, 200);
    assert.ok(pageRes.body.includes(`${BASE}/opds`));
    assert.match(pageRes.body, /You have no private link/);

    const made = await web.post('/settings/e-reader-catalogue/link');
    assert.equal(made.statusCode, 200);
    const link = /value="(http:\/\/127\.0\.0\.1:8080\/opds\?token=[\w-]{43})"/.exec(made.body)?.[1] ?? '';
    assert.notEqual(link, '', made.body);
    assert.equal(await status(link), 200);
    const again = await web.get('/settings/e-reader-catalogue');
    assert.ok(!again.body.includes(link), 'shown once');
    assert.match(again.body, /You made a private link/);

    assert.equal((await web.post('/settings/e-reader-catalogue/link')).statusCode, 200);
    assert.equal(await status(link), 401, 'a new link ends the old one');
    const revoked = await web.post('/settings/e-reader-catalogue/revoke');
    assert.equal(revoked.statusCode, 303);
    assert.equal(
      await ctx
        .store()
        .db.selectFrom('opds_tokens')
        .select('account_id')
        .where('account_id', '=', id)
        .executeTakeFirst(),
      undefined,
    );
    // A form without its token changes nothing.
    assert.equal((await web.post('/settings/e-reader-catalogue/link', { _csrf: 'forged' })).statusCode, 403);
  });

  test("a read entry's lead image is its cover, through the media proxy; none with images off", async () => {
    const { id } = await newAccount(ctx.store());
    const [entry] = await addReadingItems(ctx.store(), id, [
      { url: 'https://example.org/with-cover', title: 'With a cover', savedAt: '2026-10-01T00:00:00.000Z' },
    ]);
    const pageId = await insertPage(ctx.store(), {
      url: 'https://example.org/with-cover',
      image_url: 'https://img.example.org/cover.jpg',
      reading_minutes: 4,
    });
    await ctx
      .store()
      .db.updateTable('reading_list')
      .set({ page_id: pageId })
      .where('id', '=', entry ?? 0)
      .execute();
    const link = (await cli('account', 'opds-url', '--account', String(id))).out[0] ?? '';
    const token = new URL(link).searchParams.get('token') ?? '';
    const feed = (await app.inject({ url: `/opds/reading?token=${token}` })).body;
    const covers = [...feed.matchAll(/<link[^>]*rel="http:\/\/opds-spec\.org\/image"[^>]*>/g)].map(
      (m) => m[0],
    );
    assert.equal(covers.length, 1, feed);
    assert.match(covers[0] ?? '', /href="http:\/\/127\.0\.0\.1:8080\/media\/[^"]+"/);
    assert.match(feed, /rel="http:\/\/opds-spec\.org\/image\/thumbnail"/);
    assert.match(feed, /4 min read/);

    assert.equal((await cli('account', 'set', '--account', String(id), '--images', 'false')).code, 0);
    const plain = (await app.inject({ url: `/opds/reading?token=${token}` })).body;
    assert.doesNotMatch(plain, /opds-spec\.org\/image/);
  });
});
