/**
 * The wallabag API's page size under a client that lists a big reading list (issue 35, point 6):
 * `npm run bench:clients`. Per engine (BENCH_ENGINES, sqlite,postgres), on a fresh database: BENCH_ENTRIES
 * (10,000) reading-list entries of one account, every tenth with 2 KB of its own readable HTML and each with
 * a tag, behind the real HTTP server on loopback. A KOReader-shaped client signs in (password grant, JSON)
 * and lists every entry page by page at perPage=100 (detail=full, the default, so content is read), then the
 * Android app's sync order (sort=updated, order=asc, since=0); each page's time is taken from the request
 * to its last byte, and the statements the server ran for it are counted (a plugin on the store's Kysely:
 * every round trip to the database, the token's check included), so that a gain shows as a count and not
 * only as time on a loaded machine. Printed: median, p95 and the slowest page of each walk, and the
 * statements a page; the bar is every page within 100 ms. Exit 1 when a page missed it.
 */
import { createApiClient } from '../src/accounts/apiClients.js';
import { operatorSetPassword } from '../src/accounts/passwords.js';
import { createAccountWithKey } from '../src/accounts/service.js';
import { type Engine, openStore } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { type NewReadingItem, insertReadingItems } from '../src/store/readingList.js';
import { createTestDatabase } from '../src/test/databases.js';
import { testServer } from '../src/test/harness.js';
import { countAllStatements } from '../src/test/statements.js';
import { KoreaderClient } from '../src/test/wallabagClients.js';
import { sql } from 'kysely';
import { envInt } from './env.js';
import { runBench } from './processes.js';
import { fmt, load, log } from './report.js';
import { median } from './rounds.js';

const ENTRIES = envInt('BENCH_ENTRIES', 10_000);
const PER_PAGE = 100;
const BAR_MS = 100;
const ENGINES: Engine[] = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',').map((e) => {
  const engine = e.trim();
  if (engine !== 'sqlite' && engine !== 'postgres')
    throw new Error(`BENCH_ENGINES: unknown engine ${engine}`);
  return engine;
});
const PARAGRAPH = `<p>${'A sentence of the readable text, as an export brings it. '.repeat(35)}</p>`;

interface Walk {
  pages: number;
  /** Statements the server ran for a page: the fewest and the most of the walk. */
  statements: { min: number; max: number };
  entries: number;
  medianMs: number;
  p95Ms: number;
  slowestMs: number;
}

const p95 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.95) - 1] ?? 0;

async function walk(ko: KoreaderClient, query: string, statements: () => number): Promise<Walk> {
  const times: number[] = [];
  const perPage: number[] = [];
  let entries = 0;
  for (let page = 1; ; page++) {
    const before = statements();
    const started = performance.now();
    const a = await ko.get(`/api/entries.json?${query}&page=${page}&perPage=${PER_PAGE}`);
    times.push(performance.now() - started);
    perPage.push(statements() - before);
    if (a.status !== 200) throw new Error(`page ${page}: ${a.status} ${a.text.slice(0, 200)}`);
    const body = a.json as { pages: number; _embedded: { items: unknown[] } };
    entries += body._embedded.items.length;
    if (page >= body.pages) break;
  }
  return {
    pages: times.length,
    statements: { min: Math.min(...perPage), max: Math.max(...perPage) },
    entries,
    medianMs: median(times),
    p95Ms: p95(times),
    slowestMs: Math.max(...times),
  };
}

async function measure(engine: Engine): Promise<Walk[]> {
  const db = await createTestDatabase(engine);
  const store = openStore(db.url);
  // The server's store counts its statements; the filling below goes through the bench's own.
  const served = { ...store };
  const counter = countAllStatements(served);
  const app = testServer(served);
  try {
    await migrateToLatest(store);
    const { account } = await createAccountWithKey(store, { name: 'bench reader' });
    await operatorSetPassword(store, account.id, 'bench password', new Date());
    const made = await createApiClient(store, account.id, 'bench', new Date());
    if (made === null) throw new Error('no client');
    const filling = performance.now();
    for (let start = 0; start < ENTRIES; start += 500) {
      const batch: NewReadingItem[] = [];
      for (let i = start; i < Math.min(ENTRIES, start + 500); i++) {
        const own = i % 10 === 0;
        batch.push({
          url: `https://site${i % 50}.example/articles/${i}`,
          urlKey: `https://site${i % 50}.example/articles/${i}`,
          title: `Article ${i}`,
          state: i % 3 === 0 ? 'archived' : 'unread',
          tags: `\ntopic${i % 20}\n`,
          savedAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
          source: 'pocket',
          description: null,
          author: null,
          publishedAt: null,
          html: own ? PARAGRAPH : null,
          text: own ? PARAGRAPH.replace(/<[^>]+>/g, '') : null,
        });
      }
      await insertReadingItems(store.db, account.id, batch, '2026-11-28T00:00:00.000Z');
    }
    if (engine === 'postgres') await sql`analyze`.execute(store.db);
    log(`${engine}: ${fmt(ENTRIES)} entries filled in ${fmt((performance.now() - filling) / 1000, 1)} s`);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address !== 'object') throw new Error('no address');
    const ko = new KoreaderClient({
      server: `http://127.0.0.1:${address.port}`,
      clientId: made.client.client_id,
      clientSecret: made.clientSecret,
      username: 'bench reader',
      password: 'bench password',
    });
    if ((await ko.getBearerToken()).status !== 200) throw new Error('sign-in failed');
    await walk(ko, 'detail=metadata', () => counter.count); // warm-up
    const walks: Walk[] = [];
    for (const [name, query] of [
      ['every entry, newest first (detail=full)', 'detail=full'],
      ['unread only (KOReader: archive=0)', 'archive=0'],
      ['sync order (Android: sort=updated&order=asc&since=0)', 'sort=updated&order=asc&since=0&detail=full'],
    ] as const) {
      const w = await walk(ko, query, () => counter.count);
      walks.push(w);
      log(
        `  ${name}: ${fmt(w.entries)} entries in ${fmt(w.pages)} pages; a page ${fmt(w.medianMs, 1)} ms median, p95 ${fmt(w.p95Ms, 1)} ms, slowest ${fmt(w.slowestMs, 1)} ms; ${statementsText(w.statements)} a page`,
      );
    }
    return walks;
  } finally {
    await app.close();
    await store.close();
    await db.drop();
  }
}

const statementsText = ({ min, max }: Walk['statements']): string =>
  min === max ? `${min} statements` : `${min}–${max} statements`;

await runBench('clients', async () => {
  log(`wallabag API page by page, ${new Date().toISOString()}, load ${load()}`);
  let missed = false;
  for (const engine of ENGINES) {
    const walks = await measure(engine);
    const slowest = Math.max(...walks.map((w) => w.slowestMs));
    const met = slowest <= BAR_MS;
    missed ||= !met;
    log(
      `${engine}: slowest page ${fmt(slowest, 1)} ms; every page within ${BAR_MS} ms: ${met ? 'met' : 'MISSED'}`,
    );
  }
  log(`load at the end: ${load()}`);
  return missed ? 1 : 0;
});
