/**
 * What forgetting unused pages costs the page reader a pass (issue 33, point 11): `npm run bench:forget`.
 * Per engine (BENCH_ENGINES, sqlite,postgres), on a fresh database: BENCH_PAGES (100,000) read pages, each
 * shown by a reading-list item (as an import of that size leaves them: nothing to forget), and
 * BENCH_UNUSED (100) pages nothing shows, spread among them. Then the reader's forgetting
 * (store/pages.ts deleteUnusedPages, with enrich.ts's window) is run pass after pass, as the worker runs it,
 * until a whole walk of the table has been made, and again for a second walk (nothing left to forget):
 * printed are the median and the slowest pass of each walk, how many passes a walk takes, and that every
 * unused page (and no other) was forgotten. Writes .bench/forget-pages.json. No bar: exit 0.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { DEFAULT_ENRICH_OPTIONS } from '../src/articles/enrich.js';
import { createAccountWithKey } from '../src/accounts/service.js';
import { type Engine, type Store, openStore } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { deleteUnusedPages } from '../src/store/pages.js';
import { createTestDatabase } from '../src/test/databases.js';
import { envInt } from './env.js';
import { runBench } from './processes.js';
import { fmt, load, log } from './report.js';
import { median } from './rounds.js';

const PAGES = envInt('BENCH_PAGES', 100_000);
const UNUSED = envInt('BENCH_UNUSED', 100);
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',').map((e) => e.trim());
for (const e of ENGINES) {
  if (e !== 'sqlite' && e !== 'postgres') throw new Error(`BENCH_ENGINES: unknown engine ${e}`);
}
const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..');
const AT = '2026-11-28T00:00:00.000Z';

/** Every page read; all but every (PAGES / UNUSED + 1)th shown by a reading-list item of `accountId`. */
async function fill(store: Store, accountId: number): Promise<void> {
  const every = Math.max(1, Math.floor(PAGES / UNUSED));
  const total = PAGES + UNUSED;
  const series =
    store.engine === 'sqlite'
      ? sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${total}) select i from n`
      : sql`select i from generate_series(1, ${total}) as i`;
  await sql`insert into pages (url, url_key, state, next_attempt_at, created_at)
    select 'https://site' || i || '.example/post', 'site' || i || '.example/post', 'read', null, ${AT}
    from (${series}) as s`.execute(store.db);
  // PostgreSQL: the search documents' triggers (and 0035's notice) left out while filling: an import of
  // this size takes minutes, and the walk reads none of them.
  if (store.engine === 'postgres') await sql`alter table reading_list disable trigger user`.execute(store.db);
  await sql`insert into reading_list
      (account_id, url, url_key, title, state, tags, saved_at, source, page_id, created_at, updated_at)
    select ${accountId}, p.url, p.url_key, p.url, 'unread', '', ${AT}, 'pocket', p.id, ${AT}, ${AT}
    from pages p where p.id % ${every + 1} <> 0`.execute(store.db);
  if (store.engine === 'postgres') await sql`alter table reading_list enable trigger user`.execute(store.db);
}

interface Walk {
  passes: number;
  forgotten: number;
  medianMs: number;
  slowestMs: number;
}

/** Passes as the worker makes them, from its cursor, until the walk is back at the start. */
async function walk(store: Store): Promise<Walk> {
  const times: number[] = [];
  let forgotten = 0;
  let after = 0;
  do {
    const t = performance.now();
    const done = await deleteUnusedPages(store.db, { after, scan: DEFAULT_ENRICH_OPTIONS.forgetWindow });
    times.push(performance.now() - t);
    forgotten += done.deleted;
    after = done.next;
  } while (after !== 0);
  return { passes: times.length, forgotten, medianMs: median(times), slowestMs: Math.max(...times) };
}

async function measure(engine: Engine): Promise<{ engine: Engine; first: Walk; second: Walk }> {
  const db = await createTestDatabase(engine);
  const store = openStore(db.url);
  try {
    await migrateToLatest(store);
    const { account } = await createAccountWithKey(store, { name: 'bench' });
    const filling = performance.now();
    await fill(store, account.id);
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from pages p where not exists (select 1 from reading_list r where r.page_id = p.id)`.execute(
      store.db,
    );
    const unused = Number(rows[0]?.n);
    log(
      `${engine}: ${fmt(PAGES + UNUSED)} pages, ${fmt(unused)} unused, filled in ${fmt((performance.now() - filling) / 1000, 1)} s`,
    );
    if (store.engine === 'postgres') await sql`analyze`.execute(store.db);
    const first = await walk(store);
    const second = await walk(store);
    if (first.forgotten !== unused || second.forgotten !== 0) {
      throw new Error(`forgot ${first.forgotten} then ${second.forgotten}, for ${unused} unused pages`);
    }
    for (const [name, w] of [
      ['first walk', first],
      ['second walk', second],
    ] as const) {
      log(
        `  ${name}: ${fmt(w.passes)} passes, ${fmt(w.forgotten)} forgotten, a pass ${fmt(w.medianMs, 2)} ms (median), ${fmt(w.slowestMs, 2)} ms at most`,
      );
    }
    return { engine, first, second };
  } finally {
    await store.close();
    await db.drop();
  }
}

await runBench('forget-pages', async () => {
  log(`Forgetting unused pages, ${new Date().toISOString()}, load ${load()}`);
  log(`window: ${fmt(DEFAULT_ENRICH_OPTIONS.forgetWindow)} pages a pass`);
  const results = [];
  for (const engine of ENGINES) results.push(await measure(engine as Engine));
  mkdirSync(join(ROOT, '.bench'), { recursive: true });
  writeFileSync(
    join(ROOT, '.bench', 'forget-pages.json'),
    JSON.stringify({ pages: PAGES, unused: UNUSED, results }, null, 2),
  );
  log(`load at the end: ${load()}`);
  return 0;
});
