/**
 * Page reader benchmark: `npm run bench:enrich`, in two steps. (1) The extraction step alone, per DOM
 * (linkedom, as shipped; happy-dom and jsdom for the DOM choice), each in a child process of its own over
 * the same pages, time-boxed at BENCH_SECONDS (60) each (bench/enrich-extract.ts). (2) The whole pipeline
 * on SQLite — link saved items to pages,
 * claim them, fetch each from a loopback server, extract (Readability on linkedom, sanitise), record — over
 * BENCH_PAGES (2,000) realistic article pages of 50–150 KB (bench/pages.ts), served by bench/pages-server.ts
 * in a process of its own on BENCH_HOSTS (16) loopback addresses (the reader's limit of 2 per host applies
 * per address, as it would per site). The reader runs as shipped: the built dist/ modules in a plain
 * `node --expose-gc` process of its own (no TypeScript loader in its memory), with its default limits (8
 * at once, 2 per host): it saves the first quarter of the pages and reads them in one pass, then saves and
 * reads the rest.
 *
 * Printed: for each DOM, extraction pages/s, ms per page, whether the text was right and its memory after
 * 500 pages and at the end; for the pipeline, pages/s over both passes, the reader process's peak RSS
 * (getrusage's maxrss: its extraction threads included) and its memory after the first quarter and after
 * all pages (after a GC); then a summary table. The bars are the pipeline's: ≥ 40 pages/s and a peak RSS
 * under 300 MB. Every page must be read once (the server counts the requests, the database the rows).
 * Exits 0 when both bars are met, 1 when one is missed, 2 when the benchmark itself failed (the pipeline,
 * or extraction with linkedom). Writes .bench/enrich.json.
 *
 * BENCH_DOMS (linkedom,happy-dom,jsdom) chooses the DOMs of step 1; "none" skips it. BENCH_THREADS sets the
 * reader's extraction threads (default: what `tidings serve` would use on this machine, config.ts's
 * defaultReaderThreads).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createAccountWithKey } from '../src/accounts/service.js';
import { openStore } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { DOMS, type DomName, type ExtractResult, describe, extractionBench } from './enrich-extract.js';
import { envInt } from './env.js';
import { firstLine, runBench } from './processes.js';
import { fmt, load, log, mb } from './report.js';

const PAGES = envInt('BENCH_PAGES', 2000);
const HOSTS = envInt('BENCH_HOSTS', 16);
const FIRST = Math.floor(PAGES / 4);
const PAGES_PER_SECOND_BAR = 40;
const RSS_BAR = 300 * 2 ** 20;
/** BENCH_READER_FLAGS: node flags for the reader process, e.g. "--cpu-prof" to see where its time goes. */
const readerFlags = (process.env.BENCH_READER_FLAGS ?? '').split(' ').filter((f) => f !== '');
const DIST = pathToFileURL(resolve(import.meta.dirname, '..', 'dist')).href;

interface Memory {
  rss: number;
  heapUsed: number;
}
interface ReaderResult {
  firstMs: number;
  restMs: number;
  read: number;
  peakRss: number;
  before: Memory;
  afterFirst: Memory;
  afterAll: Memory;
  extractThreads: number;
}

/** The measured process: plain JavaScript over dist/, given its work in the environment. */
const READER = `
const { enrichOnce } = await import('${DIST}/articles/enrich.js');
const { addSavedUrl } = await import('${DIST}/queue/add.js');
const { openStore } = await import('${DIST}/store/db.js');
const { default: pino } = await import('pino');
const { DB, ACCOUNT, ORIGINS, PAGES, FIRST } = process.env;
const origins = JSON.parse(ORIGINS);
const memory = () => { globalThis.gc(); const m = process.memoryUsage(); return { rss: m.rss, heapUsed: m.heapUsed }; };
const store = openStore(DB);
const save = async (from, to) => {
  for (let n = from; n < to; n += 100) {
    const batch = Array.from({ length: Math.min(100, to - n) }, (_, i) => n + i);
    await Promise.all(batch.map((k) => addSavedUrl(store, Number(ACCOUNT),
      { url: origins[k % origins.length] + '/article/' + k, title: undefined, source: 'api' }, { limit: 1000000 })));
  }
};
const { defaultReaderThreads } = await import('${DIST}/config.js');
const { availableParallelism } = await import('node:os');
const extractThreads = process.env.BENCH_THREADS === undefined ? defaultReaderThreads(availableParallelism()) : Number(process.env.BENCH_THREADS);
const deps = { store, log: pino({ level: 'silent' }), fetch: { policy: { allowPrivate: true } }, extractThreads };
const before = memory();
await save(0, Number(FIRST));
let t = performance.now();
const first = await enrichOnce(deps);
const firstMs = performance.now() - t;
const afterFirst = memory();
await save(Number(FIRST), Number(PAGES));
t = performance.now();
const rest = await enrichOnce(deps);
const restMs = performance.now() - t;
const afterAll = memory();
const peakRss = process.resourceUsage().maxRSS * 1024;
await store.close();
process.stdout.write(JSON.stringify({ firstMs, restMs, read: first.read + rest.read, peakRss, before, afterFirst, afterAll, extractThreads }) + '\\n');
`;

await runBench('bench:enrich', async (cleanup) => {
  const wanted = (process.env.BENCH_DOMS ?? DOMS.join(',')).split(',');
  const doms = DOMS.filter((d) => wanted.includes(d));
  let extraction: (ExtractResult | Error)[] = [];
  if (doms.length > 0) {
    log(
      `bench:enrich (1) extraction alone, per DOM: ${fmt(PAGES)} pages at most, ${envInt('BENCH_SECONDS', 60)} s at most each; load ${load()}`,
    );
    extraction = await extractionBench(doms, (child) => cleanup.track(child));
    for (const r of extraction) log(`  ${r instanceof Error ? 'failed' : r.dom}: ${describe(r)}`);
    const linkedom = extraction.find((r, i) => doms[i] === 'linkedom');
    if (linkedom instanceof Error) throw linkedom;
  }

  const tmp = mkdtempSync(join(tmpdir(), 'tidings-bench-enrich-'));
  cleanup.defer('removing the temporary directory', () => rmSync(tmp, { recursive: true, force: true }));
  const addresses = Array.from({ length: HOSTS }, (_, i) => `127.0.1.${1 + i}`);
  const server = cleanup.track(
    spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'pages-server.ts'), ...addresses], {
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const { origins } = JSON.parse(await firstLine(server)) as { origins: string[] };

  const db = join(tmp, 'tidings.db');
  const setup = openStore(db);
  await migrateToLatest(setup);
  const { account } = await createAccountWithKey(setup, { name: 'bench' });
  await setup.close();

  // A file rather than `-e` (a thread it started would inherit `--input-type` and fail), in .bench/ so
  // that its imports resolve to this checkout's packages.
  mkdirSync('.bench', { recursive: true });
  const readerScript = resolve('.bench', 'enrich-reader.mjs');
  writeFileSync(readerScript, READER);
  log(
    `bench:enrich (2) the whole pipeline: ${fmt(PAGES)} pages on ${HOSTS} loopback hosts, SQLite; ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${load()}`,
  );
  const reader = cleanup.track(
    spawn(process.execPath, ['--expose-gc', ...readerFlags, readerScript], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        DB: db,
        ACCOUNT: String(account.id),
        ORIGINS: JSON.stringify(origins),
        PAGES: String(PAGES),
        FIRST: String(FIRST),
      },
    }),
  );
  const r = JSON.parse(await firstLine(reader, 3_600_000)) as ReaderResult;

  const check = openStore(db);
  cleanup.defer('closing the database', () => check.close());
  const rows = await check.db
    .selectFrom('pages')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('word_count').as('words')])
    .where('state', '=', 'read')
    .where('title', 'is not', null)
    .executeTakeFirstOrThrow();
  const stats = (await (await fetch(`${origins[0] ?? ''}/stats`)).json()) as {
    requests: number;
    bytes: number;
  };
  if (r.read !== PAGES || rows.n !== PAGES || stats.requests !== PAGES) {
    throw new Error(
      `read ${r.read}, stored ${rows.n}, served ${stats.requests} of ${PAGES} pages; the benchmark is not valid`,
    );
  }
  const perSecond = PAGES / ((r.firstMs + r.restMs) / 1000);
  log(
    `  extraction threads: ${r.extractThreads} (BENCH_THREADS; default as shipped, for ${cpus().length} CPUs)`,
  );
  log(
    `  first ${fmt(FIRST)} pages: ${fmt(r.firstMs / 1000, 1)} s; the other ${fmt(PAGES - FIRST)}: ${fmt(r.restMs / 1000, 1)} s`,
  );
  log(
    `  ${fmt(perSecond, 1)} pages/s (bar ≥ ${PAGES_PER_SECOND_BAR}); ${mb(stats.bytes)} of HTML served, ${fmt(rows.words)} words stored`,
  );
  log(
    `  memory: at start ${mb(r.before.rss)} RSS; after ${fmt(FIRST)} pages ${mb(r.afterFirst.rss)} RSS / ${mb(r.afterFirst.heapUsed)} heap; after ${fmt(PAGES)} ${mb(r.afterAll.rss)} RSS / ${mb(r.afterAll.heapUsed)} heap`,
  );
  log(`  peak RSS ${mb(r.peakRss)} (bar < ${mb(RSS_BAR)})`);
  summary(doms, extraction, { perSecond, ...r });
  mkdirSync('.bench', { recursive: true });
  writeFileSync(
    '.bench/enrich.json',
    JSON.stringify(
      { pages: PAGES, hosts: HOSTS, extraction, pipeline: { perSecond, ...r, bytes: stats.bytes } },
      (_, v: unknown) => (v instanceof Error ? v.message : v),
      2,
    ),
  );
  const ok = perSecond >= PAGES_PER_SECOND_BAR && r.peakRss < RSS_BAR;
  log(ok ? 'bench:enrich: both bars met' : 'bench:enrich: a bar was missed');
  return ok ? 0 : 1;
});

/** The summary table: one row per DOM's extraction alone, one for the pipeline. */
function summary(
  doms: readonly DomName[],
  extraction: (ExtractResult | Error)[],
  pipeline: ReaderResult & { perSecond: number },
): void {
  const rows: string[][] = [
    ['step', 'pages', 'pages/s', 'ms/page (median, p95)', 'RSS after 500', 'RSS at end / peak'],
  ];
  extraction.forEach((r, i) => {
    const name = `extract, ${doms[i] ?? '?'}`;
    if (r instanceof Error) rows.push([name, 'failed', '', '', '', '']);
    else
      rows.push([
        name,
        `${fmt(r.pages)} (text right ${fmt(r.right)})`,
        fmt(r.perSecond, 1),
        `${fmt(r.medianMs, 1)}, ${fmt(r.p95Ms, 1)}`,
        r.at500 === null ? 'n/a' : mb(r.at500.peakRss),
        mb(r.end.peakRss),
      ]);
  });
  rows.push([
    'whole pipeline',
    fmt(PAGES),
    fmt(pipeline.perSecond, 1),
    fmt((pipeline.firstMs + pipeline.restMs) / PAGES, 1) + ' (wall)',
    mb(pipeline.afterFirst.rss),
    `${mb(pipeline.afterAll.rss)} / ${mb(pipeline.peakRss)}`,
  ]);
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length))) ?? [];
  log('');
  for (const row of rows) log(`  ${row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join('  ')}`);
  log('');
}
