import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Worker } from 'node:worker_threads';
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
    const pool = new ExtractPool(2);
    try {
      const pages = Array.from({ length: 6 }, (_, n) => page(n));
      const got = await Promise.all(pages.map((p) => pool.extract(p)));
      assert.deepEqual(
        got,
        pages.map((p) => extractPage(p)),
      );
      assert.equal(got[3]?.title, 'Page 3');
    } finally {
      await pool.close();
    }
  });

  it('a page whose thread dies is extracted by another, still once', async () => {
    const pool = new ExtractPool(1);
    try {
      const pending = [pool.extract(page(1)), pool.extract(page(2))];
      const threads = (pool as unknown as { threads: { worker: Worker }[] }).threads;
      await threads[0]?.worker.terminate();
      const got = await Promise.all(pending);
      assert.deepEqual(got, [extractPage(page(1)), extractPage(page(2))]);
      assert.deepEqual(await pool.extract(page(3)), extractPage(page(3)));
    } finally {
      await pool.close();
    }
  });
});
