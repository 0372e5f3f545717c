import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import pino from 'pino';
import { useFeedServer, waitFor } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { PAGE_TEST_HOST, pageOf, saveUrl, testReaderDeps } from '../test/pageFixtures.js';
import { enrichOnce } from './enrich.js';
import { extractPage } from './extract.js';
import { ExtractPool, THREAD_LIMITS } from './extractPool.js';
import { LIMIT_REASONS, MAX_ELEMENTS } from './limits.js';

const page = (n: number): { body: Uint8Array; contentType: string; url: string } => ({
  body: new TextEncoder().encode(
    `<!doctype html><html lang="en"><head><title>Page ${n} | Site</title><meta property="og:title" content="Page ${n}"></head>` +
      `<body><article><h1>Page ${n}</h1>${`<p>Paragraph of page ${n}, long enough to be read as an article by Readability, with <a href="/more/${n}">a link</a>.</p>`.repeat(12)}</article></body></html>`,
  ),
  contentType: 'text/html; charset=utf-8',
  url: `https://example.com/story/${n}`,
});

const html = (markup: string): { body: Uint8Array; contentType: string; url: string } => ({
  body: new TextEncoder().encode(`<!doctype html><html><head><title>Heavy</title></head><body>${markup}`),
  contentType: 'text/html',
  url: 'https://example.com/heavy',
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
      assert.deepEqual(deaths, [], 'no thread ended');
    } finally {
      await pool.close();
    }
  });

  it('a page whose thread crashes is extracted by a fresh one, still once', async () => {
    const ended: unknown[] = [];
    const pool = new ExtractPool(1, (err) => ended.push(err));
    try {
      await pool.extract(page(0)); // the thread is started and ready: the next page is handed at once
      const threads = (pool as unknown as { threads: { worker: Worker; task: unknown }[] }).threads;
      const pending = [pool.extract(page(1)), pool.extract(page(2))];
      assert.notEqual(threads[0]?.task ?? null, null, 'page 1 is in the thread');
      await threads[0]?.worker.terminate();
      const got = await Promise.all(pending);
      assert.deepEqual(got, [extractPage(page(1)), extractPage(page(2))]);
      assert.deepEqual(await pool.extract(page(3)), extractPage(page(3)));
      assert.equal(ended.length, 1, 'one thread ended: the one terminated');
    } finally {
      await pool.close();
    }
  });

  it('a page past its time limit has its thread ended and is refused; the next page is read', async () => {
    const ended: unknown[] = [];
    // The test's clock says when a page's time is up, so no machine is too busy or too fast for it.
    const timeUp: (() => void)[] = [];
    const clock = {
      start: (up: () => void) => timeUp.push(up),
      cancel: () => undefined,
    };
    const pool = new ExtractPool(1, (err) => ended.push(err), THREAD_LIMITS, clock);
    try {
      // Flat and under every size limit, yet about 14 s of CPU: Readability weighs each of 29,990 links
      // against the whole body. It is still being read when its time is up.
      const slow = html(`<div>${'<a href="/x">link text here</a> '.repeat(MAX_ELEMENTS / 2 - 10)}</div>`);
      const pending = Promise.all([pool.extract(slow), pool.extract(page(1))]);
      await waitFor('the slow page handed to the thread', () => Promise.resolve(timeUp.length === 1));
      timeUp[0]?.();
      const [refused, next] = await pending;
      assert.equal(refused.refused, LIMIT_REASONS.time(THREAD_LIMITS.timeMs));
      assert.equal(refused.byteLength, slow.body.byteLength);
      assert.deepEqual(next, extractPage(page(1)), 'read by a fresh thread, its own clock never up');
      assert.equal(timeUp.length, 2);
      assert.equal(ended.length, 1);
      assert.equal(pool.started, 2);
    } finally {
      await pool.close();
    }
  });

  it('a page past its memory limit ends its thread, not the process, and is refused', async () => {
    const ended: unknown[] = [];
    const pool = new ExtractPool(1, (err) => ended.push(err), { timeMs: 60_000, oldMb: 16, youngMb: 2 });
    try {
      // Within the element limit, but its DOM takes about 50 MB.
      const big = html(`<ul>${'<li>item <b>bold</b></li>'.repeat(MAX_ELEMENTS / 2 - 10)}</ul>`);
      const [refused, next] = await Promise.all([pool.extract(big), pool.extract(page(2))]);
      assert.equal(refused.refused, LIMIT_REASONS.memory(16));
      assert.deepEqual(next, extractPage(page(2)));
      assert.equal((ended[0] as { code?: string }).code, 'ERR_WORKER_OUT_OF_MEMORY');
    } finally {
      await pool.close();
    }
  });

  it('never extracts in this thread: a closed pool refuses', async () => {
    const pool = new ExtractPool(1);
    const pending = pool.extract(page(1));
    await pool.close();
    await assert.rejects(pending, /stopped before this page was extracted/);
    await assert.rejects(pool.extract(page(2)), /closed/);
  });
});

await describeEachEngine('the page reader with extraction threads', (ctx) => {
  const PAGES = 20;
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
    assert.deepEqual(warnings, [], 'no thread ended early');
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
