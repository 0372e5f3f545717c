/**
 * The EPUB's thread (builds.ts): the bytes are those of package.ts, made in a worker thread started by
 * the first build and ended after its idle time; one build at a time, further bounded ones wait a little
 * or are refused as busy; a build past its time or memory limit fails with a clear error, the process
 * and the next build go on.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { strFromU8, unzipSync } from 'fflate';
import type { Book, BookEntry } from './book.js';
import { BUILDS, EpubBuildError, EpubBuilds, isEpubBuildError } from './builds.js';
import { epubBytes } from './package.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./testdata/${name}`, import.meta.url), 'utf8');
const ARTICLES = ['news-article.html', 'blog-post.html', 'magazine-longread.html'].map(fixture);

/** A book of `count` chapters, each with about `chars` characters of the fixtures' HTML. */
function testBook(count: number, chars: number, extra: Partial<BookEntry> = {}): Book {
  const entries = Array.from({ length: count }, (_, i): BookEntry => {
    let html = '';
    while (html.length < chars) html += ARTICLES[i % ARTICLES.length] ?? '';
    return {
      title: `Article ${i}`,
      href: `https://example.org/${i}`,
      site: 'example.org',
      readingTime: '6 min read',
      excerpt: `Excerpt ${i}`,
      article: {
        html: html.slice(0, chars),
        author: 'A. Writer',
        siteName: 'Site',
        language: 'en',
        direction: null,
      },
      ...extra,
    };
  });
  return {
    identifier: 'urn:uuid:00000000-0000-5000-8000-000000000000',
    title: 'Tidings — Sunday 22 November 2026',
    dateLabel: 'Sunday 22 November 2026',
    localDate: '2026-11-22',
    modified: '2026-11-22T08:00:00Z',
    language: 'en',
    counts: { items: count, entries: count, articles: count },
    sections: [{ title: 'Saved', entries, more: 0 }],
  };
}

/** A promise and its resolve, to hold a build's loading until the test lets it go. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

const until = async (what: () => boolean): Promise<void> => {
  while (!what()) await new Promise((r) => setTimeout(r, 5));
};

describe('EPUB builds in a thread', () => {
  it('makes the same bytes as package.ts; no thread before the first build or after its idle time', async () => {
    const builds = new EpubBuilds({ ...BUILDS, idleMs: 100 });
    try {
      assert.equal(builds.threads, 0, 'no thread at idle');
      const book = testBook(5, 40_000);
      const built = await builds.build(() => Promise.resolve({ book, extra: 'kept' }), 'bounded');
      assert.ok(built !== null);
      assert.equal(built.extra, 'kept');
      assert.deepEqual(Buffer.from(built.bytes), Buffer.from(epubBytes(book)), 'byte-identical');
      assert.equal(builds.threads, 1, 'kept for a while');
      const again = await builds.build(() => Promise.resolve({ book }), 'bounded');
      assert.deepEqual(Buffer.from(again?.bytes ?? []), Buffer.from(built.bytes));
      assert.equal(builds.threads, 1, 'the same thread');
      await until(() => builds.threads === 0);
      assert.equal(
        await builds.build(() => Promise.resolve(null), 'bounded'),
        null,
        'nothing to build: null',
      );
      assert.equal(builds.threads, 0, 'and no thread for it');
    } finally {
      await builds.close();
    }
  });

  it('idleMs 0: a thread per build, ended with it', async () => {
    const builds = new EpubBuilds({ ...BUILDS, idleMs: 0 });
    try {
      const built = await builds.build(() => Promise.resolve({ book: testBook(2, 1000) }), 'bounded');
      assert.ok(built !== null && built.bytes.length > 0);
      assert.equal(builds.threads, 0);
    } finally {
      await builds.close();
    }
  });

  it('one build at a time: the next waits its turn, past `waiting` or `waitMs` bounded ones are busy', async () => {
    const builds = new EpubBuilds({ ...BUILDS, size: 1, waiting: 1, waitMs: 60_000, retryAfterSeconds: 7 });
    try {
      const first = gate();
      const order: string[] = [];
      const book = testBook(2, 1000);
      const a = builds.build(async () => {
        await first.wait;
        order.push('a loads');
        return { book };
      }, 'bounded');
      const b = builds.build(() => {
        order.push('b loads');
        return Promise.resolve({ book });
      }, 'bounded');
      // The one waiting place is taken: a third bounded build is refused at once, an unbounded one waits.
      await assert.rejects(
        builds.build(() => Promise.resolve({ book }), 'bounded'),
        (err: unknown) => isEpubBuildError(err, 'busy') && err.retryAfterSeconds === 7,
      );
      const c = builds.build(() => {
        order.push('c loads');
        return Promise.resolve({ book });
      }, 'unbounded');
      assert.equal(builds.building, 1);
      first.open();
      await Promise.all([a, b, c]);
      assert.deepEqual(order, ['a loads', 'b loads', 'c loads'], 'one at a time, in order');
      assert.equal(builds.building, 0);

      const short = new EpubBuilds({ ...BUILDS, size: 1, waiting: 4, waitMs: 50 });
      const held = gate();
      const slow = short.build(async () => {
        await held.wait;
        return { book };
      }, 'bounded');
      await assert.rejects(
        short.build(() => Promise.resolve({ book }), 'bounded'),
        (err: unknown) => isEpubBuildError(err, 'busy'),
        'waited past waitMs',
      );
      held.open();
      assert.ok((await slow) !== null);
      await short.close();
    } finally {
      await builds.close();
    }
  });

  it('past its time or memory limit a build fails clearly; the next one gets a fresh thread', async () => {
    const big = testBook(40, 200_000);
    const timed = new EpubBuilds({ ...BUILDS, limits: { ...BUILDS.limits, timeMs: 20 } });
    const small = new EpubBuilds({ ...BUILDS, limits: { timeMs: 60_000, oldMb: 24, youngMb: 4 } });
    try {
      await assert.rejects(
        timed.build(() => Promise.resolve({ book: big }), 'bounded'),
        (err: unknown) => {
          assert.ok(err instanceof EpubBuildError);
          assert.equal(err.kind, 'failed');
          assert.match(err.message, /making the EPUB took more than 0\.02 s/);
          return true;
        },
      );
      assert.equal(timed.threads, 0, 'its thread ended');
      await assert.rejects(
        small.build(() => Promise.resolve({ book: big }), 'bounded'),
        (err: unknown) => {
          assert.ok(err instanceof EpubBuildError);
          assert.equal(err.kind, 'failed');
          assert.match(err.message, /needed more than its 24 MB of memory|the EPUB's thread ended/);
          return true;
        },
      );
      assert.equal(small.threads, 0);
      const next = await small.build(() => Promise.resolve({ book: testBook(1, 1000) }), 'bounded');
      assert.ok(next !== null && unzipSync(next.bytes)['mimetype'] !== undefined, 'the next build works');
    } finally {
      await Promise.all([timed.close(), small.close()]);
    }
  });

  it('a hostile article becomes valid XHTML in the thread, or a clear failure, never a crash', async () => {
    const hostile =
      '<div>'.repeat(20_000) +
      '\u0000\u0001\uD800 <script>alert(1)</script><a href="javascript:x">x</a>' +
      `<p title="${'"'.repeat(5000)}">` +
      '<table><tr><td>'.repeat(3000);
    const builds = new EpubBuilds(BUILDS);
    try {
      const book = testBook(3, 0, {
        article: { html: hostile, author: '<b>', siteName: null, language: 'x"y', direction: 'sideways' },
      });
      const built = await builds.build(() => Promise.resolve({ book }), 'bounded');
      assert.ok(built !== null);
      const chapter = strFromU8(unzipSync(built.bytes)['EPUB/s1-1.xhtml'] ?? new Uint8Array());
      assert.doesNotMatch(chapter, /<script|javascript:/);
      assert.ok(!chapter.includes('\u0000'), 'no NUL');
      assert.deepEqual(Buffer.from(built.bytes), Buffer.from(epubBytes(book)));
    } finally {
      await builds.close();
    }
  });
});
