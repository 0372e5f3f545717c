/**
 * Digest benchmark: `npm run bench:digest`. For each engine and each number of accounts (2,500, 5,000 and
 * 10,000 by default), on a fresh database: a seed process writes the accounts, each with 50 queued items
 * and its digest due (not timed); then a fresh measuring process runs the digest worker's pass, build
 * (src/digest/build.ts) and delivery (src/digest/deliver.ts: load, HTML and text rendering, a mailer that
 * only counts bytes), timed, with memory sampled throughout (bench/digest-run.ts).
 *
 * Bars: 10,000 accounts in under 60 s on SQLite and 40 s on PostgreSQL; memory flat in the number of accounts, on every engine
 * that ran: the peak RSS of the largest run at most MEMORY_BAR times the smallest's, and the heap left
 * after a full GC grows by less than RETAINED_BAR bytes per account over the pass.
 *
 * Exits 0 when every bar is met, 1 when one is missed, 2 when the benchmark itself failed. The databases,
 * the temporary directory and the child processes are removed whatever happens. See BENCHMARKS.md.
 *
 * Environment: BENCH_ENGINES (sqlite,postgres), BENCH_SIZES (2500,5000,10000), BENCH_ITEMS (50),
 * BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres), BENCH_CPU_PROF=DIR (profile each measured
 * pass; profiles written to DIR, inherited by bench/digest-run.ts). PostgreSQL is skipped, saying so, when it is unreachable, unless CI=true.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { MeasureResult, RunConfig, SeedResult } from './digest-run.js';
import { fmt, load, log, mb } from './report.js';
import { type Cleanup, runBench, runScript } from './processes.js';
import { envInt } from './env.js';

type Engine = 'sqlite' | 'postgres';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
const SIZES = (process.env.BENCH_SIZES ?? '2500,5000,10000')
  .split(',')
  .map((s) => Number(s))
  .sort((a, b) => a - b);
const ITEMS = envInt('BENCH_ITEMS', 50);
const PG_ADMIN = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Seconds for 10,000 accounts: SQLite's of issue 4, PostgreSQL's of issue 14 (point 3). */
const TIME_BAR: Record<Engine, number> = { sqlite: 60, postgres: 40 };
const TIME_BAR_ACCOUNTS = 10_000;
/** Largest run's peak RSS over the smallest's. */
const MEMORY_BAR = 1.25;
/** Heap kept after the pass (after a full GC), per account. */
const RETAINED_BAR = 2048;

interface Run {
  engine: Engine;
  accounts: number;
  seed: SeedResult;
  measured: MeasureResult;
}

/** Whether PostgreSQL answers; with CI=true it must. */
async function postgresReachable(): Promise<boolean> {
  const admin = new pg.Client({ connectionString: PG_ADMIN, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query('select 1');
    return true;
  } catch (err) {
    const reason = `PostgreSQL at ${PG_ADMIN} is unreachable (${err instanceof Error ? err.message : String(err)})`;
    if (process.env.CI === 'true') throw new Error(`${reason}; CI=true requires it`);
    log(`${reason}: SKIPPING the PostgreSQL runs.`);
    return false;
  } finally {
    await admin.end().catch(() => undefined);
  }
}

async function adminQuery(query: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN, connectionTimeoutMillis: 3000 });
  await c.connect();
  try {
    await c.query(query);
  } finally {
    await c.end();
  }
}

/** A fresh database for one run and its removal. */
async function freshDatabase(
  engine: Engine,
  tmp: string,
  accounts: number,
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (engine === 'sqlite') {
    const dir = join(tmp, `sqlite-${accounts}`);
    mkdirSync(dir);
    return {
      url: join(dir, 'tidings.db'),
      drop: () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    };
  }
  const name = `tidings_bench_digest_${process.pid}_${accounts}`;
  await adminQuery(`drop database if exists ${name} with (force)`);
  await adminQuery(`create database ${name}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`drop database if exists ${name} with (force)`) };
}

async function benchOne(engine: Engine, accounts: number, cleanup: Cleanup, tmp: string): Promise<Run> {
  const db = await freshDatabase(engine, tmp, accounts);
  // Dropped right after the run, and by the cleanup if the run is interrupted.
  let dropped = false;
  const drop = async (): Promise<void> => {
    if (dropped) return;
    dropped = true;
    await db.drop();
  };
  cleanup.defer(`drop the ${engine} database of ${accounts} accounts`, drop);
  try {
    const config: RunConfig = { databaseUrl: db.url, accounts, items: ITEMS };
    log(`\n${engine}: ${fmt(accounts)} accounts × ${ITEMS} queued items (load average ${load()})`);
    const seed = await runScript<SeedResult>(cleanup, [], 'digest-run.ts', ['seed', JSON.stringify(config)]);
    const measured = await runScript<MeasureResult>(cleanup, ['--expose-gc'], 'digest-run.ts', [
      'measure',
      JSON.stringify(config),
    ]);
    const m = measured;
    const check = m.built === accounts && m.sent === accounts && m.itemsBuilt === accounts * ITEMS;
    if (!check) {
      throw new Error(
        `built ${m.built}, sent ${m.sent}, items ${m.itemsBuilt}: not every account; invalid run`,
      );
    }
    log(
      `  build ${m.buildSeconds.toFixed(1)} s + render and deliver ${m.deliverSeconds.toFixed(1)} s = ` +
        `${m.seconds.toFixed(1)} s, ${fmt(m.accountsPerSec)} accounts/s; peak RSS ${mb(m.peakRss)}, ` +
        `peak heap ${mb(m.peakHeapUsed)}; heap after GC ${mb(m.heapAfterGcBefore ?? 0)} → ` +
        `${mb(m.heapAfterGcAfter ?? 0)}; ${fmt(m.cpuSeconds, 1)} CPU s; ` +
        `${mb(m.htmlBytes)} HTML + ${mb(m.textBytes)} text rendered`,
    );
    log(
      `  heap used by tenth of the pass (MiB): ${m.heapByTenth.map((b) => (b / 2 ** 20).toFixed(0)).join(' ')}`,
    );
    return { engine, accounts, seed, measured };
  } finally {
    await drop();
  }
}

function report(runs: Run[]): boolean {
  log('\nDigest pass (build, then render and deliver), one fresh process per run:\n');
  log(
    '| engine | accounts | build s | render + deliver s | total s | accounts/s | peak RSS | peak heap | ' +
      'heap after GC, before → after | CPU s |',
  );
  log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const { engine, accounts, measured: m } of runs) {
    log(
      `| ${engine} | ${fmt(accounts)} | ${m.buildSeconds.toFixed(1)} | ${m.deliverSeconds.toFixed(1)} | ` +
        `${m.seconds.toFixed(1)} | ${fmt(m.accountsPerSec)} | ${mb(m.peakRss)} | ${mb(m.peakHeapUsed)} | ` +
        `${mb(m.heapAfterGcBefore ?? 0)} → ${mb(m.heapAfterGcAfter ?? 0)} | ${m.cpuSeconds.toFixed(1)} |`,
    );
  }
  let ok = true;
  log('\nBars:');
  for (const engine of ENGINES) {
    const timed = runs.find((r) => r.engine === engine && r.accounts === TIME_BAR_ACCOUNTS);
    if (timed === undefined) {
      log(`- time: no ${engine} run of ${fmt(TIME_BAR_ACCOUNTS)} accounts, not checked`);
      continue;
    }
    const pass = timed.measured.seconds < TIME_BAR[engine];
    ok &&= pass;
    log(
      `- time: ${engine}, ${fmt(TIME_BAR_ACCOUNTS)} accounts in ${timed.measured.seconds.toFixed(1)} s ` +
        `(< ${TIME_BAR[engine]} s) ${pass ? 'ok' : 'MISSED'}`,
    );
  }
  for (const engine of ENGINES) {
    const mine = runs.filter((r) => r.engine === engine);
    const small = mine[0];
    const large = mine.at(-1);
    if (small === undefined || large === undefined || mine.length < 2) continue;
    const ratio = large.measured.peakRss / small.measured.peakRss;
    const retained = Math.max(
      ...mine.map(
        (r) => ((r.measured.heapAfterGcAfter ?? 0) - (r.measured.heapAfterGcBefore ?? 0)) / r.accounts,
      ),
    );
    const pass = ratio <= MEMORY_BAR && retained < RETAINED_BAR;
    ok &&= pass;
    log(
      `- memory, ${engine}: peak RSS ${mb(small.measured.peakRss)} at ${fmt(small.accounts)} accounts, ` +
        `${mb(large.measured.peakRss)} at ${fmt(large.accounts)} (× ${ratio.toFixed(2)}, ≤ ${MEMORY_BAR}); ` +
        `heap kept after the pass ≤ ${fmt(retained)} bytes per account (< ${RETAINED_BAR}) ` +
        (pass ? 'ok' : 'MISSED'),
    );
  }
  return ok;
}

async function main(cleanup: Cleanup): Promise<number> {
  log(`Tidings digest benchmark, ${new Date().toISOString()}`);
  log(
    `machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}; ` +
      `load average ${load()}`,
  );
  if (SIZES.some((s) => !Number.isInteger(s) || s < 1))
    throw new Error('BENCH_SIZES must be positive integers');
  const tmp = mkdtempSync(join(tmpdir(), 'tidings-bench-digest-'));
  cleanup.defer(`remove ${tmp}`, () => rmSync(tmp, { recursive: true, force: true }));
  const runs: Run[] = [];
  for (const engine of ENGINES) {
    if (engine === 'postgres' && !(await postgresReachable())) continue;
    for (const accounts of SIZES) runs.push(await benchOne(engine, accounts, cleanup, tmp));
  }
  const ok = report(runs);
  mkdirSync(join(ROOT, '.bench'), { recursive: true });
  writeFileSync(
    join(ROOT, '.bench', 'digest.json'),
    `${JSON.stringify({ date: new Date().toISOString(), items: ITEMS, runs }, null, 2)}\n`,
  );
  log(`\nload average at the end: ${load()} (other work on the machine skews the numbers)`);
  if (runs.length === 0) log('\nNothing ran, so no bar was checked.');
  else log(ok ? '\nAll bars met.' : '\nFAIL: a bar was missed.');
  return ok ? 0 : 1;
}

await runBench('bench:digest', main);
