import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import pino from 'pino';
import { useFeedServer } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { PAGE_TEST_HOST, pageOf, saveUrl, testReaderDeps } from '../test/pageFixtures.js';
import { enrichOnce } from './enrich.js';
import { extractPage } from './extract.js';
import { ExtractPool } from './extractPool.js';

const page = (n: number): { body: Uint8Array; contentType: string; url: string } => ({
  body: new TextEncoder().encode(
    `<!doctype html><html lang="en"><head><title>Page ${n} | Site</title><meta property="og:title" content="Page ${n}"></head>` +
      `<body><article><h1>Page ${n}</h1>${`<p>Paragraph of page ${n}, long enough to be read as an article by Readability, with <a href="/more/${n}">a link</a>.</p>`.repeat(12)}</article></body></html>`,
  ),
  contentType: 'text/html; charset=utf-8',
  url: `https://example.com/story/${n}`,
});

describe('extraction threads', () => {
  it('extract exactly what extractPage does, each page once', async () => {
    const deaths: unknown[] = [];
    const pool = new ExtractPool(2, (err) => deaths.push(err));
    try {
      const pages = Array.from({ length: 6 }, (_, n) => page(n));
      const got = await Promise.all(pages.map((p) => pool.extract(p)));
      assert.deepEqual(
        got,
        pages.map((p) => extractPage(p)),
      );
      assert.equal(got[3]?.title, 'Page 3');
      assert.deepEqual(deaths, [], 'the threads ran (a pool whose threads fail extracts in this one)');
    } finally {
      await pool.close();
    }
  });

  it('a page whose thread dies is extracted by another, still once', async () => {
    const deaths: unknown[] = [];
    const pool = new ExtractPool(1, (err) => deaths.push(err));
    try {
      const pending = [pool.extract(page(1)), pool.extract(page(2))];
      const threads = (pool as unknown as { threads: { worker: Worker }[] }).threads;
      await threads[0]?.worker.terminate();
      const got = await Promise.all(pending);
      assert.deepEqual(got, [extractPage(page(1)), extractPage(page(2))]);
      assert.deepEqual(await pool.extract(page(3)), extractPage(page(3)));
      assert.equal(deaths.length, 1, 'one thread ended: the one terminated');
    } finally {
      await pool.close();
    }
  });
});

await describeEachEngine('the page reader with extraction threads', (ctx) => {
  const PAGES = 20; // over MIN_PAGES_FOR_THREADS, so that the pass starts its threads
  const server = useFeedServer(PAGE_TEST_HOST, (s) => {
    for (let n = 0; n < PAGES; n++) {
      s.route(`/threaded/${n}`, (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(n).body);
      });
    }
  });

  test('reads every page once and stores what extraction in this thread gives', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const urls = Array.from({ length: PAGES }, (_, n) => server().url(`/threaded/${n}`));
    for (const url of urls) await saveUrl(store, account.id, url);
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    const summary = await enrichOnce({ ...testReaderDeps(store), log, extractThreads: 2 });
    assert.deepEqual([summary.pages, summary.read, summary.failed], [PAGES, PAGES, 0]);
    assert.deepEqual(warnings, [], 'no thread ended early (a pool whose threads fail extracts here)');
    for (const [n, url] of urls.entries()) {
      const row = await pageOf(store, account.id, url);
      const here = extractPage({ ...page(n), url });
      assert.deepEqual(
        [row.title, row.description, row.html, row.word_count],
        [here.title, here.description, here.html, here.wordCount],
      );
    }
  });
});
