/**
 * Issue 27, point 4: "Read on your e-reader". The digest's web page and both parts of its email link
 * `/digests/ID/epub?token=T`, which downloads `tidings-YYYY-MM-DD.epub` (GET and HEAD) under the page's
 * rules: the account's digest token, the same 404 for a wrong token, another account's digest or none.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { strFromU8, unzipSync } from 'fflate';
import { buildDigestNow } from '../digest/build.js';
import { deliverDueDigests } from '../digest/deliver.js';
import { ensureDigestToken } from '../digest/token.js';
import { RecordingMailer, TestClock, saveUrl, setEmail, testDigestDeps } from '../test/digestPipeline.js';
import { epubcheck, epubcheckSkipReason } from '../test/epubcheck.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';

/** testDigestDeps' base URL: the links the email carries. */
const BASE = 'https://tidings.example';

await describeEachEngine('a digest as an EPUB download', (ctx) => {
  let app: FastifyInstance;
  const mailer = new RecordingMailer();
  let ada: { id: number; token: string; digest: number };
  let bob: { id: number; token: string; digest: number };

  before(async () => {
    const store = ctx.store();
    app = testServer(store);
    const deps = testDigestDeps(store, { now: new TestClock('2026-11-22T08:00:00.000Z').now, mailer });
    const make = async (title: string): Promise<{ id: number; token: string; digest: number }> => {
      const { id } = await newAccount(store);
      await setEmail(store, id, `${id}@example.org`);
      await saveUrl(store, id, `https://example.org/${id}`, title);
      const built = await buildDigestNow(deps, id);
      assert.equal(built.status, 'built');
      return { id, token: (await ensureDigestToken(store.db, id)) ?? '', digest: built.digestId };
    };
    ada = await make('Ada’s saved <link> & more');
    bob = await make('Bob only');
    await deliverDueDigests(deps, { accountId: ada.id });
  });
  after(() => app.close());

  const epubPath = (digest: number, token: string): string => `/digests/${digest}/epub?token=${token}`;
  const get = (url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'GET', url, headers });

  test('the email (both parts) and the web page link the download; it is the digest as an EPUB', async () => {
    const link = `${BASE}${epubPath(ada.digest, ada.token)}`;
    const message = mailer.sent.find((m) => m.to === `${ada.id}@example.org`);
    assert.ok(message !== undefined);
    assert.ok(message.html.includes(`Read on your e-reader</a>`));
    assert.ok(message.html.includes(`href="${link}"`), 'the HTML part links it');
    assert.ok(message.text.includes(`Read on your e-reader (EPUB): ${link}\n`), 'the text part too');
    const page = await get(`/digests/${ada.digest}?token=${ada.token}`);
    assert.equal(page.statusCode, 200);
    const footer = /<a [^>]*href="([^"]+)"[^>]*>Read on your e-reader<\/a>/.exec(page.body);
    assert.equal(
      footer?.[1],
      `http://127.0.0.1:8080${epubPath(ada.digest, ada.token)}`,
      'the web page links it',
    );

    const res = await get(epubPath(ada.digest, ada.token));
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/epub+zip');
    assert.equal(res.headers['content-disposition'], 'attachment; filename="tidings-2026-11-22.epub"');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.equal(res.headers['cache-control'], 'private, no-cache');
    const files = unzipSync(res.rawPayload);
    assert.equal(Object.keys(files)[0], 'mimetype');
    const chapter = strFromU8(files['EPUB/s1-1.xhtml'] ?? new Uint8Array());
    assert.ok(chapter.includes('<h1>Ada’s saved &lt;link&gt; &amp; more</h1>'), chapter);

    const head = await app.inject({ method: 'HEAD', url: epubPath(ada.digest, ada.token) });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-type'], 'application/epub+zip');
    assert.equal(head.headers['content-disposition'], 'attachment; filename="tidings-2026-11-22.epub"');
    assert.equal(head.body, '');

    const again = await get(epubPath(ada.digest, ada.token), { 'if-none-match': String(res.headers.etag) });
    assert.equal(again.statusCode, 304, 'the same digest, the same bytes');
  });

  test('a wrong or replaced token, another account’s digest, none, or a bad id: the same 404', async () => {
    for (const url of [
      epubPath(ada.digest, bob.token),
      epubPath(bob.digest, ada.token),
      epubPath(ada.digest, 'x'.repeat(43)),
      `/digests/${ada.digest}/epub`,
      epubPath(999_999, ada.token),
      epubPath(0, ada.token),
      `/digests/1e3/epub?token=${ada.token}`,
    ]) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      const body = res.json<{ code: number; message: string }>();
      assert.equal(body.code, 40401, url);
      assert.match(body.message, /no such digest/);
    }
  });

  test('the download passes EPUBCheck', { skip: epubcheckSkipReason() }, async () => {
    const res = await get(epubPath(bob.digest, bob.token));
    assert.equal(res.statusCode, 200);
    const report = await epubcheck(res.rawPayload);
    assert.deepEqual([report.fatals, report.errors, report.warnings], [0, 0, 0], report.output);
  });
});
