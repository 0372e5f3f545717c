import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, test } from 'node:test';
import { sql } from 'kysely';
import { strToU8 } from 'fflate';
import { operatorAccount } from '../accounts/authorize.js';
import { searchAccount } from '../accounts/search.js';
import { importReadingList } from '../imports/importLinks.js';
import type { AccountId } from '../lib/authorized.js';
import { PrometheusMetrics } from '../lib/metricsRegistry.js';
import { deleteUnusedPages, linkUnreadItems } from '../store/pages.js';
import { useFeedServer, waitFor } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { parseSamples, total } from '../test/metricsText.js';
import { PAGE_TEST_HOST, saveUrl, testClock, testReaderDeps } from '../test/pageFixtures.js';
import { enrichOnce } from './enrich.js';
import { ExtractPool } from './extractPool.js';
import type { Extractor } from './reader.js';
import { paceMs, readReadingListOnce, startPacedReader } from './pacedReader.js';

/**
 * The reading list's pages, read in the background: as a saved link's page is read, but after the queue's,
 * one fetch at a time per host (across workers), at a pace, with the reader's retries.
 */

/** An article Readability takes, with `word` only in its body. */
const article = (title: string, word: string): string =>
  `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>` +
  `<p>The dunes move a few metres a year, held only by the grass planted along their crests.</p>` +
  `<p>Wardens count the ${word} tussocks each spring and replant where storms have torn them out.</p>` +
  `<p>Walkers are asked to keep to the boardwalks, which spare the roots and the nesting birds.</p>` +
  `</article></body></html>`;

/** Requests a server is answering at once, the most ever seen, and when each arrived and ended. */
class Tally {
  active = 0;
  max = 0;
  readonly arrivals: number[] = [];
  readonly ends: number[] = [];

  /** Answers `body` after `delayMs`, counting. */
  answer(res: ServerResponse, body: string, delayMs: number, all?: Tally): void {
    for (const t of [this, all]) {
      if (t === undefined) continue;
      t.active++;
      t.max = Math.max(t.max, t.active);
      t.arrivals.push(performance.now());
    }
    void sleep(delayMs).then(() => {
      for (const t of [this, all]) {
        if (t === undefined) continue;
        t.active--;
        t.ends.push(performance.now());
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    });
  }
}

/** A Pocket export of these links, unread and untitled (their title is then the URL). */
const pocketCsv = (urls: readonly string[]): Uint8Array =>
  strToU8(`title,url,time_added,tags,status\n${urls.map((u) => `,${u},1500000000,,unread`).join('\n')}\n`);

/** Fast enough for a test: the pace and the host's rest are the subject of their own tests. */
const QUICK = { perMinute: 600_000, hostRestMs: 0 };

await describeEachEngine('reading list pages', (ctx) => {
  const one = useFeedServer(PAGE_TEST_HOST);
  // The same address on another port: another host (hosts are compared with their port).
  const two = useFeedServer(PAGE_TEST_HOST);
  const account = async (): Promise<AccountId> =>
    operatorAccount(ctx.store(), (await newAccount(ctx.store())).id);
  const importUrls = async (id: AccountId, urls: readonly string[]): Promise<void> => {
    const counts = await importReadingList(ctx.store(), id, pocketCsv(urls), 'pocket');
    assert.equal(counts.imported, urls.length);
  };
  const pageOfItem = async (accountId: number, url: string) =>
    ctx
      .store()
      .db.selectFrom('reading_list as r')
      .innerJoin('pages as p', 'p.id', 'r.page_id')
      .selectAll('p')
      .where('r.account_id', '=', accountId)
      .where('r.url', '=', url)
      .executeTakeFirstOrThrow();

  // Each test starts with no page, item or host lease of another: a pass reads whatever is due.
  beforeEach(async () => {
    const db = ctx.store().db;
    for (const table of ['reading_list', 'queue_items', 'digest_items', 'pages', 'page_host_leases'])
      await sql`delete from ${sql.table(table)}`.execute(db);
  });

  test('an imported link is read in the background; search finds it by a word only in its page', async () => {
    const id = await account();
    const url = one().route('/dunes', (_req, res) =>
      new Tally().answer(res, article('Dune grass', 'marram'), 0),
    );
    await importUrls(id, [url]);
    assert.equal((await searchAccount(ctx.store(), id, 'marram')).total, 0, 'not before the page is read');

    const metrics = new PrometheusMetrics();
    const s = await readReadingListOnce({ ...testReaderDeps(ctx.store()), metrics }, QUICK);
    assert.deepEqual([s.linked, s.pages, s.read, s.yielded], [1, 1, 1, false]);
    const page = await pageOfItem(id, url);
    assert.deepEqual([page.state, page.title, page.paced, page.attempts], ['read', 'Dune grass', 1, 1]);
    assert.match(page.text ?? '', /marram/);

    const found = await searchAccount(ctx.store(), id, 'marram');
    assert.equal(found.total, 1);
    assert.deepEqual(
      [found.hits[0]?.kind, found.hits[0]?.title.map((t) => t.text).join('')],
      ['reading', 'Dune grass'],
    );
    const samples = parseSamples(await metrics.render());
    assert.equal(
      total(samples, 'tidings_page_read_duration_seconds_count', { outcome: 'read', list: 'reading_list' }),
      1,
    );
    assert.equal(total(samples, 'tidings_page_read_duration_seconds_count', { list: 'queue' }), 0);

    // Read once: the next pass fetches nothing.
    const again = await readReadingListOnce(testReaderDeps(ctx.store()), QUICK);
    assert.deepEqual([again.linked, again.pages], [0, 0]);
    assert.equal(one().requestsFor('/dunes').length, 1);
  });

  test("the queue's pages come first; the queue's reader leaves paced pages alone", async () => {
    const id = await account();
    const saved = one().route('/saved', (_req, res) => new Tally().answer(res, article('Saved', 'kelp'), 0));
    const listed = one().route('/listed', (_req, res) =>
      new Tally().answer(res, article('Listed', 'wrack'), 0),
    );
    await saveUrl(ctx.store(), id, saved);
    await linkUnreadItems(ctx.store().db, { now: new Date().toISOString(), limit: 10 });
    await importUrls(id, [listed]);
    const deps = testReaderDeps(ctx.store());

    const waited = await readReadingListOnce(deps, QUICK);
    assert.deepEqual([waited.linked, waited.pages, waited.yielded], [1, 0, true]);
    const queued = await enrichOnce(deps, { accountId: id });
    assert.deepEqual([queued.read, queued.forgotten], [1, 0]);
    assert.equal(one().requestsFor('/listed').length, 0, "the queue's reader did not read the paced page");
    const paced = await pageOfItem(id, listed);
    assert.deepEqual([paced.state, paced.attempts], ['pending', 0]);

    const s = await readReadingListOnce(deps, QUICK);
    assert.deepEqual([s.pages, s.read, s.yielded], [1, 1, false]);
    assert.equal((await pageOfItem(id, listed)).state, 'read');
  });

  test('a paced page a saved link comes to want is read by the queue; a page read already is shared', async () => {
    const id = await account();
    const both = one().route('/both', (_req, res) => new Tally().answer(res, article('Both', 'samphire'), 0));
    const read = one().route('/read', (_req, res) => new Tally().answer(res, article('Read', 'thrift'), 0));
    await importUrls(id, [both]);
    await readReadingListOnce(testReaderDeps(ctx.store()), { ...QUICK, passPages: 0 }); // links only
    assert.deepEqual([(await pageOfItem(id, both)).paced, one().requestsFor('/both').length], [1, 0]);
    await saveUrl(ctx.store(), id, both);
    await saveUrl(ctx.store(), id, read);
    assert.equal((await enrichOnce(testReaderDeps(ctx.store()), { accountId: id })).read, 2);
    assert.deepEqual([(await pageOfItem(id, both)).paced, (await pageOfItem(id, both)).state], [0, 'read']);

    // Another account imports the link already read: linked to the page, found at once, not fetched again.
    const other = await account();
    await importUrls(other, [read]);
    const s = await readReadingListOnce(testReaderDeps(ctx.store()), QUICK);
    assert.deepEqual([s.linked, s.pages], [1, 0]);
    assert.equal((await searchAccount(ctx.store(), other, 'thrift')).total, 1);
    assert.equal(one().requestsFor('/read').length, 1);
    assert.equal(
      (await searchAccount(ctx.store(), id, 'samphire')).total,
      2,
      'the saved item and the listed one',
    );
  });

  test('an item with text of its own is not fetched; a page an item shows is never forgotten', async () => {
    const id = await account();
    const kept = one().route('/kept', (_req, res) =>
      new Tally().answer(res, article('Kept', 'sea-holly'), 0),
    );
    const wallabag = JSON.stringify([
      {
        title: 'Own',
        url: one().url('/own'),
        content: '<p>Its own text.</p>',
        is_archived: 0,
        is_starred: 0,
        tags: [],
      },
    ]);
    assert.equal((await importReadingList(ctx.store(), id, strToU8(wallabag), 'wallabag')).imported, 1);
    await importUrls(id, [kept]);
    const s = await readReadingListOnce(testReaderDeps(ctx.store()), QUICK);
    assert.deepEqual([s.linked, s.read], [1, 1]);
    assert.equal(one().requestsFor('/own').length, 0);
    const own = await ctx
      .store()
      .db.selectFrom('reading_list')
      .selectAll()
      .where('url', '=', one().url('/own'))
      .executeTakeFirstOrThrow();
    assert.equal(own.page_id, null);

    const page = await pageOfItem(id, kept);
    const all = { after: 0, scan: 1_000_000 };
    assert.equal((await deleteUnusedPages(ctx.store().db, all)).deleted, 0, 'the item shows it');
    await ctx.store().db.deleteFrom('reading_list').where('url', '=', kept).execute();
    assert.equal((await deleteUnusedPages(ctx.store().db, all)).deleted, 1);
    assert.equal(
      await ctx.store().db.selectFrom('pages').select('id').where('id', '=', page.id).executeTakeFirst(),
      undefined,
    );
  });

  test('one fetch at a time per host across three workers; hosts are compared with their port', async () => {
    const id = await account();
    const all = new Tally();
    const perServer = [new Tally(), new Tally()];
    const urls: string[] = [];
    for (const [n, server] of [one(), two()].entries()) {
      for (let i = 0; i < 8; i++) {
        urls.push(
          server.route(`/host/${i}`, (_req, res) =>
            perServer[n]?.answer(res, article(`Page ${i}`, 'lyme'), 40, all),
          ),
        );
      }
    }
    await importUrls(id, urls);
    const deps = testReaderDeps(ctx.store());
    assert.equal((await readReadingListOnce(deps, { passPages: 0 })).linked, 16);
    const unread = async (): Promise<number> => {
      const { rows } = await sql<{ n: number | string }>`
        select count(*) as n from pages where state <> 'read'`.execute(ctx.store().db);
      return Number(rows[0]?.n ?? 0);
    };
    const worker = async (owner: string): Promise<void> => {
      const deadline = Date.now() + 20_000;
      while ((await unread()) > 0 && Date.now() < deadline) {
        await readReadingListOnce(deps, { ...QUICK, owner });
        await sleep(5);
      }
    };
    await Promise.all(['w1', 'w2', 'w3'].map(worker));
    assert.equal(await unread(), 0);
    for (const [n, server] of [one(), two()].entries()) {
      for (let i = 0; i < 8; i++) assert.equal(server.requestsFor(`/host/${i}`).length, 1, `${n}:${i}`);
      assert.equal(perServer[n]?.max, 1, `never two requests at once to ${server.origin}`);
    }
    assert.equal(all.max, 2, 'the two ports were read at the same time: two hosts');
  });

  test('a pace: at most perMinute starts a minute per worker, one after another', async () => {
    const id = await account();
    const all = new Tally();
    const urls: string[] = [];
    for (const [n, server] of [one(), two()].entries()) {
      for (let i = 0; i < 3; i++) {
        urls.push(
          server.route(`/pace/${i}`, (_req, res) => all.answer(res, article(`Pace ${n}${i}`, 'sedge'), 0)),
        );
      }
    }
    await importUrls(id, urls);
    // 300 a minute: 200 ms from one start to the next, even on two hosts. The starts are read where the
    // reader keeps them (its pace), not from the requests' arrivals: on a busy machine a request can
    // arrive late after one start and on time after the next, which says nothing of the pace.
    const starts: number[] = [];
    let lastStart: number | null = null;
    const pace = {
      get lastStart(): number | null {
        return lastStart;
      },
      set lastStart(t: number | null) {
        if (t !== null) starts.push(t);
        lastStart = t;
      },
    };
    const s = await readReadingListOnce(testReaderDeps(ctx.store()), { perMinute: 300, hostRestMs: 0, pace });
    assert.equal(s.read, 6);
    assert.equal(all.max, 1);
    assert.equal(all.arrivals.length, 6, 'one request a start');
    assert.equal(starts.length, 6, 'six starts');
    const gaps = starts.slice(1).map((t, i) => t - (starts[i] ?? 0));
    // A timer may fire a fraction of a millisecond before performance.now() says its time has come.
    assert.ok(Math.min(...gaps) >= paceMs(300) - 1, `starts ${gaps.map(Math.round).join(', ')} ms apart`);
  });

  test('2,000 links of one host are never fetched in a burst, with two workers running', async (t) => {
    const id = await account();
    const host = new Tally();
    const urls = Array.from({ length: 2000 }, (_, i) => one().url(`/many/${i}`));
    for (const [i, u] of urls.entries())
      one().route(new URL(u).pathname, (_req, res) => host.answer(res, article(`Many ${i}`, 'dune'), 20));
    await importUrls(id, urls);
    // The host's rest is kept by the reader's clock: frozen here, and moved by hand.
    const clock = testClock();
    const deps = testReaderDeps(ctx.store(), { now: clock.now });
    assert.equal((await readReadingListOnce(deps, { passPages: 0 })).linked, 2000);
    const pool = new ExtractPool(1);
    t.after(() => pool.close());
    // A pace that holds nothing back: the rest of 250 ms between two reads of the host is all that does.
    const extract: Extractor = (input) => pool.extract(input);
    const opts = { perMinute: 600_000, hostRestMs: 250, extract };
    // Both workers' passes at once, as two worker processes' loops would run them.
    const bothWorkers = async (): Promise<number[]> => {
      const passes = await Promise.all(
        ['w1', 'w2'].map((owner) => readReadingListOnce(deps, { ...opts, owner })),
      );
      return passes.map((p) => p.pages).sort();
    };
    for (let rest = 1; rest <= 5; rest++) {
      assert.deepEqual(await bothWorkers(), [0, 1], 'one read of the host, by one worker');
      assert.equal(host.arrivals.length, rest);
      clock.advance(249);
      assert.deepEqual(await bothWorkers(), [0, 0], 'the host rests: no read 1 ms before its rest ends');
      clock.advance(1);
    }
    assert.equal(host.max, 1, 'never two reads of the host at once');
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from pages where state = 'pending' and attempts = 0`.execute(ctx.store().db);
    assert.equal(Number(rows[0]?.n), 2000 - 5, 'the rest wait their turn, untouched');
  });

  test("two running paced readers: one read of a host at a time, and the host's rest between", async () => {
    const id = await account();
    const host = new Tally();
    const clock = testClock();
    // The reader's clock at each read of the host: it moves only by hand, in steps of 50 ms.
    const readAt: number[] = [];
    const urls = Array.from({ length: 200 }, (_, i) => one().url(`/running/${i}`));
    for (const [i, u] of urls.entries()) {
      one().route(new URL(u).pathname, (_req, res) => {
        readAt.push(clock.now().getTime());
        host.answer(res, article(`Running ${i}`, 'dune'), 20);
      });
    }
    await importUrls(id, urls);
    const deps = testReaderDeps(ctx.store(), { now: clock.now });
    const opts = { perMinute: 6000, hostRestMs: 250, maxSleepMs: 20 };
    const workers = [startPacedReader(deps, opts), startPacedReader(deps, opts)];
    try {
      // However slowly the workers run, the clock only moves once the host is idle again.
      while (readAt.length < 4) {
        await waitFor('the host idle', () => Promise.resolve(host.active === 0));
        clock.advance(50);
        await sleep(10);
      }
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    assert.equal(host.max, 1, 'never two reads of the host at once');
    const rests = readAt.slice(1).map((at, i) => at - (readAt[i] ?? 0));
    assert.ok(
      rests.every((ms) => ms >= 250),
      `reads ${rests.join(', ')} ms apart on the reader's clock`,
    );
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from pages where state = 'pending' and attempts = 0`.execute(ctx.store().db);
    assert.equal(Number(rows[0]?.n), 200 - readAt.length, 'the rest wait their turn, untouched');
  });

  test('failures back off, never loop, and end failed after 5 attempts', async () => {
    const id = await account();
    const busy = one().route('/busy', (_req, res) => res.writeHead(503).end());
    const gone = one().route('/gone', (_req, res) => res.writeHead(404).end());
    await importUrls(id, [busy, gone]);
    const clock = testClock();
    const deps = testReaderDeps(ctx.store(), { now: clock.now });
    const first = await readReadingListOnce(deps, QUICK);
    assert.deepEqual([first.retried, first.failed], [1, 1]);
    assert.equal((await pageOfItem(id, gone)).state, 'failed');
    let page = await pageOfItem(id, busy);
    assert.equal(page.next_attempt_at, new Date(clock.now().getTime() + 2 * 60_000).toISOString());
    // At once again: nothing is due, nothing fetched.
    assert.equal((await readReadingListOnce(deps, QUICK)).pages, 0);
    assert.equal(one().requestsFor('/busy').length, 1);
    for (let attempt = 2; attempt <= 5; attempt++) {
      clock.advance(7 * 60 * 60_000); // past the longest backoff (6 hours)
      assert.equal((await readReadingListOnce(deps, QUICK)).pages, 1);
    }
    page = await pageOfItem(id, busy);
    assert.deepEqual([page.state, page.attempts], ['failed', 5]);
    assert.match(page.error ?? '', /gave up after 5 attempts/);
    clock.advance(30 * 24 * 60 * 60_000);
    assert.equal((await readReadingListOnce(deps, QUICK)).pages, 0);
    assert.deepEqual([one().requestsFor('/busy').length, one().requestsFor('/gone').length], [5, 1]);
  });
});
