/**
 * U+0000 in any text from outside is stored without it, on both engines (issue 33, D): PostgreSQL refused
 * the statement (`invalid byte sequence for encoding "UTF8": 0x00`), which failed an import's batch and
 * every one after it (the CLI with a stack trace, the web upload 500) and had a fetched page retried until
 * it failed; SQLite kept the character. Each writer below is the real one, end to end.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { enrichOnce } from '../articles/enrich.js';
import { cliOn } from '../test/cliRun.js';
import { refreshNow, testRefreshDeps, trustedFeed, useFeedServer } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { PAGE_TEST_HOST, pageOf, saveUrl, testClock, testReaderDeps } from '../test/pageFixtures.js';
import { WebClient, webServer } from '../test/webClient.js';
import type { Store } from './db.js';
import { storableParameters, withoutNul } from './storableText.js';

const NUL = '\u0000';

/** Every string of every row of `table` that holds U+0000, as `column: value`. */
async function nulsIn(store: Store, table: 'reading_list' | 'pages' | 'queue_items' | 'feed_items') {
  const rows = (await store.db.selectFrom(table).selectAll().execute()) as Record<string, unknown>[];
  return rows.flatMap((row) =>
    Object.entries(row)
      .filter(([, v]) => typeof v === 'string' && v.includes(NUL))
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`),
  );
}

/** A Wallabag export of `n` entries; the first entry of each batch of 500 carries U+0000 everywhere. */
function wallabag(n: number, tag: string): string {
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => {
      const nul = i % 500 === 0 ? NUL : '';
      return {
        is_archived: 0,
        is_starred: 0,
        tags: [`tide${nul}s`],
        title: `Entry${nul} ${i}`,
        url: `https://nul-${tag}.example/${i}`,
        content: `<p>The moon${nul} pulls the <b>sea</b>${nul}.</p><pre>a${nul}b</pre>`,
        created_at: '2020-01-01T00:00:00+00:00',
        published_by: [`Ada${nul} Tide`],
      };
    }),
  );
}

const BOUNDARY = '----tidings-nul';

/** The reading list's upload form as a browser sends it: the token and the file. */
function uploadBody(csrf: string, file: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n`),
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="export"; filename="w.json"\r\n` +
        'Content-Type: application/json\r\n\r\n',
    ),
    Buffer.from(file),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

test('storableParameters: strings lose U+0000, in arrays too; other values and clean arrays as they are', () => {
  const buffer = Buffer.from([0, 1, 0]);
  const clean = ['a', 1, null, buffer];
  assert.equal(storableParameters(clean), clean);
  assert.deepEqual(storableParameters([`a${NUL}b`, [`c${NUL}`, 2, [NUL]], buffer, 3n]), [
    'ab',
    ['c', 2, ['']],
    buffer,
    3n,
  ]);
  assert.equal(withoutNul(`${NUL}x${NUL}${NUL}y${NUL}`), 'xy');
});

await describeEachEngine('text with U+0000 is stored without it', (ctx) => {
  const cli = cliOn(() => ctx.url(), { TIDINGS_BASE_URL: 'https://tidings.example' });
  const pages = useFeedServer(PAGE_TEST_HOST, (s) => {
    s.route('/nul', (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<html><head><title>Null${NUL} page</title></head><body><article><h1>Null page</h1>` +
            `<p>${'Words about the tide, and a null here: \u0000 then more words. '.repeat(30)}</p>` +
            `<pre>code${NUL}point</pre></article></body></html>`,
        ),
    );
  });
  const feeds = useFeedServer('127.0.0.1');
  let app: FastifyInstance;
  before(() => {
    app = webServer(ctx.store());
  });
  after(() => app.close());

  test('tidings import of a Wallabag export with U+0000 in two batches: every entry, exit 0', async (t) => {
    const { id } = await newAccount(ctx.store());
    const dir = mkdtempSync(join(tmpdir(), 'tidings-nul-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'wallabag.json');
    writeFileSync(file, wallabag(700, 'cli'));
    const r = await cli('import', '--account', String(id), file, '--json');
    assert.equal(r.code, 0, r.err.join('\n'));
    const counts = JSON.parse(r.out[0] ?? '') as { imported: number; bad: number };
    assert.deepEqual([counts.imported, counts.bad], [700, 0]);
    assert.deepEqual(await nulsIn(ctx.store(), 'reading_list'), []);
    const first = await ctx
      .store()
      .db.selectFrom('reading_list')
      .select(['title', 'tags', 'author', 'html', 'text'])
      .where('url', '=', 'https://nul-cli.example/0')
      .executeTakeFirstOrThrow();
    assert.equal(first.title, 'Entry 0');
    assert.equal(first.tags, '\ntides\n');
    assert.equal(first.author, 'Ada Tide');
    assert.match(first.html ?? '', /The moon pulls the <b>sea<\/b>\./);
    assert.match(first.html ?? '', /<pre>ab<\/pre>/);
  });

  test('the same export uploaded on the reading-list page: 200, every entry', async () => {
    const account = await newAccount(ctx.store());
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    await client.get('/reading-list');
    const res = await app.inject({
      method: 'POST',
      url: '/reading-list/import',
      headers: {
        accept: 'text/html',
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}`,
      },
      payload: uploadBody(client.csrf, wallabag(700, 'web')),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /Imported 700 links from a wallabag export of 700 rows/);
    assert.deepEqual(await nulsIn(ctx.store(), 'reading_list'), []);
  });

  test('a fetched page with U+0000 in its text is read once, and kept without it', async () => {
    const account = await newAccount(ctx.store());
    const url = pages().url('/nul');
    await saveUrl(ctx.store(), account.id, url);
    const clock = testClock();
    const deps = testReaderDeps(ctx.store(), { now: clock.now });
    const summary = await enrichOnce(deps, { accountId: account.id });
    assert.deepEqual([summary.read, summary.retried, summary.failed], [1, 0, 0]);
    const page = await pageOf(ctx.store(), account.id, url);
    assert.deepEqual([page.state, page.attempts, page.error], ['read', 1, null]);
    assert.match(page.text ?? '', /a null here: then more words/);
    assert.deepEqual(await nulsIn(ctx.store(), 'pages'), []);
    clock.advance(30 * 24 * 3_600_000);
    assert.equal((await enrichOnce(deps, { accountId: account.id })).pages, 0);
    assert.equal(pages().requestsFor('/nul').length, 1);
  });

  test('a JSON feed with U+0000 in its items: every item kept, without it', async () => {
    const item = (n: number) => ({
      id: `item${NUL}${n}`,
      url: `https://nul-feed.example/${n}`,
      title: `Item${NUL} ${n}`,
      summary: `A summary${NUL} ${n}`,
      content_html: `<p>Body${NUL} ${n}</p>`,
      date_published: new Date(Date.now() - n * 60_000).toISOString(),
      authors: [{ name: `Ann${NUL} Bee` }],
      tags: [`t${NUL}ag`],
    });
    const url = feeds().route('/nul.json', (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/feed+json' }).end(
        JSON.stringify({
          version: 'https://jsonfeed.org/version/1.1',
          title: `Null${NUL} feed`,
          home_page_url: 'https://nul-feed.example/',
          items: [item(1), item(2), item(3)],
        }),
      ),
    );
    const { feedId, accountId } = await trustedFeed(ctx.store(), url);
    const outcome = await refreshNow(testRefreshDeps(ctx.store()), feedId);
    assert.equal(outcome.status, 'updated', JSON.stringify(outcome));
    const queued = await ctx
      .store()
      .db.selectFrom('queue_items')
      .select('title')
      .where('account_id', '=', accountId)
      .orderBy('title')
      .execute();
    assert.deepEqual(
      queued.map((q) => q.title),
      ['Item 1', 'Item 2', 'Item 3'],
    );
    assert.deepEqual(await nulsIn(ctx.store(), 'feed_items'), []);
    assert.deepEqual(await nulsIn(ctx.store(), 'queue_items'), []);
  });
});
