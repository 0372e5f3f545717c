import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { useFeedServer } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import {
  PAGE_TEST_HOST,
  pageFixture,
  pageOf,
  saveUrl,
  testClock,
  testReaderDeps,
} from '../test/pageFixtures.js';
import { enrichOnce } from './enrich.js';
import { ExtractPool, THREAD_LIMITS } from './extractPool.js';

/** The page reader over a loopback server: what it stores for real pages, files and hostile markup. */

await describeEachEngine('page reader', (ctx) => {
  const server = useFeedServer(PAGE_TEST_HOST, (s) => {
    const html = (body: Buffer | string, type = 'text/html; charset=utf-8') => {
      return (_req: unknown, res: ServerResponse) => {
        res.writeHead(200, { 'content-type': type }).end(body);
      };
    };
    s.route('/og-rich', html(pageFixture('og-rich.html')));
    // The site's name in the title's suffix is its host: the only name a loopback server has.
    const titleOnly = pageFixture('title-only.html')
      .toString('utf8')
      .replace('| Crumbs', `| ${PAGE_TEST_HOST}`);
    s.route('/title-only', html(titleOnly));
    s.route('/jsonld', html(pageFixture('jsonld.html')));
    // No charset in the header: the page's own <meta charset=windows-1252> decides.
    s.route('/cafe', html(pageFixture('windows-1252.html'), 'text/html'));
    s.route('/hostile', html(pageFixture('hostile.html')));
    s.route('/report.pdf', html('%PDF-1.7\n% a small report\n', 'application/pdf'));
    const paragraph = `<p>${'Many words make a long paragraph, and long paragraphs make a heavy page. '.repeat(8)}</p>\n`;
    const huge = `<html><head><title>Huge</title></head><body><article>${paragraph.repeat(Math.ceil(10_000_000 / paragraph.length))}</article></body></html>`;
    s.route('/huge', html(huge));
  });

  test('saved pages are read once: metadata, text, files; the API lists {url, title} exactly as saved', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const url = (path: string) => server().url(path);
    const paths = ['/og-rich', '/title-only', '/jsonld', '/cafe', '/report.pdf'];
    for (const path of paths)
      await saveUrl(store, account.id, url(path), path === '/og-rich' ? 'My own name' : undefined);

    const summary = await enrichOnce(testReaderDeps(store), { accountId: account.id });
    assert.deepEqual(
      [summary.linked, summary.pages, summary.read, summary.failed, summary.retried],
      [5, 5, 5, 0, 0],
    );

    const og = await pageOf(store, account.id, url('/og-rich'));
    assert.deepEqual(
      [og.state, og.kind, og.title, og.site_name, og.author, og.language, og.attempts, og.http_status],
      ['read', 'html', 'The quiet return of the night train', 'Rail Weekly', 'Inès Duval', 'en-US', 1, 200],
    );
    assert.equal(
      og.description,
      'Sleeper services are coming back across Europe, and travellers are booking them.',
    );
    assert.equal(og.published_at, '2026-11-20T06:30:00.000Z');
    assert.equal(og.image_url, 'https://cdn.railweekly.com/images/night-train.jpg');
    assert.equal(og.image_alt, 'A sleeper train at dusk');
    assert.match(og.html ?? '', /<h2>Who rides<\/h2>/);
    assert.ok(og.word_count > 200, String(og.word_count));
    assert.equal(og.reading_minutes, 1);
    assert.equal(og.final_url, url('/og-rich'));
    assert.equal(og.error, null);
    assert.equal(og.lease_owner, null);

    const titleOnly = await pageOf(store, account.id, url('/title-only'));
    assert.equal(titleOnly.title, 'Baking bread at home');
    assert.ok(titleOnly.description?.startsWith('Good bread needs four things'));

    const jsonLd = await pageOf(store, account.id, url('/jsonld'));
    assert.deepEqual(
      [jsonLd.title, jsonLd.author, jsonLd.published_at],
      ['Harbour crane lifts its last container', 'Tom Berg, Ana Lopes', '2026-10-02T09:15:00.000Z'],
    );

    const cafe = await pageOf(store, account.id, url('/cafe'));
    assert.equal(cafe.title, 'Café – 5 € le “menu”');
    assert.match(cafe.html ?? '', /« On sert trois cents couverts par jour »/);
    assert.doesNotMatch(cafe.html ?? '', /\uFFFD/);

    const pdf = await pageOf(store, account.id, url('/report.pdf'));
    assert.deepEqual(
      [pdf.state, pdf.kind, pdf.media_type, pdf.html, pdf.word_count, pdf.byte_length],
      ['read', 'file', 'application/pdf', null, 0, 26],
    );

    // Read pages are not fetched again.
    const again = await enrichOnce(testReaderDeps(store), { accountId: account.id });
    assert.deepEqual([again.linked, again.pages], [0, 0]);
    for (const path of paths) assert.equal(server().requestsFor(path).length, 1, path);
    const request = server().requestsFor('/og-rich')[0];
    assert.match(String(request?.headers['user-agent']), /page reader/);
    assert.equal(request?.headers.accept, 'text/html, application/xhtml+xml;q=0.9, */*;q=0.8');

    const app = testServer(store);
    try {
      const res = await app.inject({ method: 'GET', url: `/api?api_key=${account.apiKey}` });
      assert.equal(res.statusCode, 200);
      const listed = res.json<{ url: string; title: string }[]>();
      const expected = paths.map((p) => ({ url: url(p), title: p === '/og-rich' ? 'My own name' : url(p) }));
      assert.deepEqual(
        [...listed].sort((a, b) => a.url.localeCompare(b.url)),
        expected.sort((a, b) => a.url.localeCompare(b.url)),
      );
    } finally {
      await app.close();
    }
  });

  test('one page per URL however many accounts saved it; a 10 MB page is read up to the 5 MiB limit', async () => {
    const store = ctx.store();
    const [a, b] = [await newAccount(store), await newAccount(store)];
    await saveUrl(store, a.id, server().url('/huge'));
    await saveUrl(store, b.id, server().url('/huge'));
    // What is tested is one read per URL and the size limit, not the time limits: on a machine at load 15
    // the 5 MiB page's extraction went past the 20 s wall-clock limit (and was failed), so this pass has
    // limits no busy machine reaches (extractPool.test and hostilePages.test test the limits themselves).
    const pool = new ExtractPool(1, undefined, { ...THREAD_LIMITS, timeMs: 300_000 });
    const summary = await enrichOnce(testReaderDeps(store, { requestTimeoutMs: 120_000 }), {
      extract: (input) => pool.run(input),
    }).finally(() => pool.close());
    assert.equal(summary.linked >= 2, true);
    assert.equal(server().requestsFor('/huge').length, 1);
    const [pa, pb] = [
      await pageOf(store, a.id, server().url('/huge')),
      await pageOf(store, b.id, server().url('/huge')),
    ];
    assert.equal(pa.id, pb.id);
    assert.deepEqual([pa.state, pa.title, pa.byte_length], ['read', 'Huge', 5 * 1024 * 1024]);
    assert.ok((pa.html ?? '').length > 100_000);
    assert.ok(summary.truncated >= 1);
  });

  test('hostile markup: nothing executable is stored', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    await saveUrl(store, account.id, server().url('/hostile'));
    await enrichOnce(testReaderDeps(store), { accountId: account.id });
    const page = await pageOf(store, account.id, server().url('/hostile'));
    assert.equal(page.state, 'read');
    const stored = JSON.stringify(page);
    assert.doesNotMatch(stored, /<script|<iframe|<form|<object|<embed|<svg|<style/i);
    assert.doesNotMatch(stored, /\son\w+\s*=/i);
    assert.doesNotMatch(stored, /javascript:/i);
    assert.doesNotMatch(page.html ?? '', /data:text\/html/i);
    assert.equal(page.image_url, null);
    assert.equal(page.canonical_url, null);
    assert.match(page.html ?? '', /a safe page/);
  });

  test('a page nothing shows any more is forgotten', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    await saveUrl(store, account.id, server().url('/og-rich?forget'));
    const clock = testClock();
    await enrichOnce(testReaderDeps(store, { now: clock.now }), { accountId: account.id });
    const page = await pageOf(store, account.id, server().url('/og-rich?forget'));
    await store.db.deleteFrom('queue_items').where('account_id', '=', account.id).execute();
    const summary = await enrichOnce(testReaderDeps(store, { now: clock.now }));
    assert.ok(summary.forgotten >= 1);
    const left = await store.db.selectFrom('pages').select('id').where('id', '=', page.id).execute();
    assert.deepEqual(left, []);
  });
});
