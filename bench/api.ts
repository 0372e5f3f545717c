/**
 * API benchmark: `npm run bench:api`. Tidings (built, `node dist/app/main.js serve`, default log level,
 * logs to /dev/null, TIDINGS_WORKER=false: targets.ts serveEnv says why) against a bare node:http
 * "ceiling" that answers the same bytes, on SQLite and PostgreSQL, alternating ceiling / Tidings runs for
 * several rounds. Prints req/s, p99 and the ratio to the ceiling (medians of the rounds) and exits 1 when
 * a bar is missed. See BENCHMARKS.md.
 *
 * Environment: BENCH_ROUNDS (3), BENCH_DURATION seconds per run (5), BENCH_CONNECTIONS (10),
 * BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres), BENCH_ENGINES (sqlite,postgres),
 * BENCH_CPU_PROF=DIR (run Tidings under node --cpu-prof, profiles written to DIR when it stops),
 * BENCH_CASES (all: 'GET A,GET B,POST A'; a subset runs only those, e.g. to profile one).
 */
import type { Options } from 'autocannon';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Cleanup, freshDatabase, runBench, stopChild } from './processes.js';
import { envInt } from './env.js';
import { type Alternated, type RoundsPlan, alternate, fmtMs, fmtRps } from './rounds.js';
import {
  CLI,
  createAccount,
  expectSeeded,
  getA,
  postA,
  seedQueue,
  serveEnv,
  startCeiling,
  startServe,
} from './targets.js';

type Engine = 'sqlite' | 'postgres';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const ROUNDS = envInt('BENCH_ROUNDS', 3);
const DURATION = envInt('BENCH_DURATION', 5);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const PLAN: RoundsPlan = { rounds: ROUNDS, duration: DURATION, warmup: 2, connections: CONNECTIONS };
const PG_ADMIN = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
const CPU_PROF = process.env.BENCH_CPU_PROF;
const CASES = process.env.BENCH_CASES?.split(',').map((c) => c.trim());
/** Minimum Tidings / ceiling throughput ratios: SQLite's of issue 1, PostgreSQL's of issue 14 (point 6). */
const BARS: Record<Engine, Record<string, number>> = {
  sqlite: { 'GET A': 0.3, 'POST A': 0.4 },
  postgres: { 'GET A': 0.5, 'POST A': 0.2 },
};

interface CaseSpec {
  name: string;
  /** The autocannon request for a server at base. */
  options: (base: string) => Options;
}

interface Summary extends Alternated {
  engine: Engine;
  name: string;
  bar: number | undefined;
}

const log = (line: string): void => void process.stdout.write(`${line}\n`);

async function benchEngine(engine: Engine, cleanup: Cleanup, tmp: string): Promise<Summary[]> {
  const dir = join(tmp, engine);
  mkdirSync(dir);
  const databaseUrl = await freshDatabase(engine, cleanup, dir, PG_ADMIN);
  if (databaseUrl === null) return [];
  const env = serveEnv(databaseUrl);
  const getKey = await createAccount(cleanup, env, 'bench-get');
  const postKey = await createAccount(cleanup, env, 'bench-post');

  const prof = CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(CPU_PROF)}`];
  const server = await startServe(cleanup, env, dir, prof);
  const bodyFile = join(dir, 'get-body.json');
  const getBody = await seedQueue(server.base, getKey, bodyFile);
  const ceiling = await startCeiling(cleanup, bodyFile, getBody, getKey);

  const all: CaseSpec[] = [
    { name: 'GET A', options: (base) => getA([base], getKey) },
    { name: 'GET B', options: (base) => ({ url: `${base}/api?api_key=${getKey}` }) },
    { name: 'POST A', options: (base) => postA([base], postKey) },
  ];
  const cases = all.filter((c) => CASES === undefined || CASES.includes(c.name));
  log(`\n${engine}: Tidings on ${server.base} (${databaseUrl}), ceiling on ${ceiling.base}`);
  const summaries: Summary[] = [];
  for (const spec of cases) {
    const label = `${engine.padEnd(8)} ${spec.name.padEnd(7)}`;
    const bases = { ceiling: ceiling.base, tidings: server.base };
    const result = await alternate(label, (who) => spec.options(bases[who]), PLAN);
    summaries.push({
      ...result,
      engine,
      name: spec.name,
      bar: BARS[engine][spec.name],
    });
  }

  await expectSeeded(server.base, getKey);
  await stopChild(ceiling.child);
  await stopChild(server.child);
  return summaries;
}

function report(summaries: Summary[]): boolean {
  log('\nMedians of the rounds (Tidings / ceiling):\n');
  log('| engine | case | ceiling req/s | ceiling p99 | Tidings req/s | Tidings p99 | ratio | bar |');
  log('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |');
  let ok = true;
  for (const s of summaries) {
    const pass = s.bar === undefined || s.ratio >= s.bar;
    ok &&= pass;
    const bar = s.bar === undefined ? '—' : `≥ ${s.bar.toFixed(2)} ${pass ? 'ok' : 'MISSED'}`;
    log(
      `| ${s.engine} | ${s.name} | ${fmtRps(s.ceiling.rps)} | ${fmtMs(s.ceiling.p99)} | ` +
        `${fmtRps(s.tidings.rps)} | ${fmtMs(s.tidings.p99)} | ${s.ratio.toFixed(2)} | ${bar} |`,
    );
  }
  return ok;
}

async function main(cleanup: Cleanup): Promise<number> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build (npm run bench:api does)`);
  log(`Tidings API benchmark, ${new Date().toISOString()}`);
  log(
    `machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}; ` +
      `${ROUNDS} rounds × ${DURATION} s per target and case, ${CONNECTIONS} connections, pipelining 1; ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  const tmp = mkdtempSync(join(tmpdir(), 'tidings-bench-'));
  cleanup.defer(`remove ${tmp}`, () => rmSync(tmp, { recursive: true, force: true }));
  const summaries: Summary[] = [];
  for (const engine of ENGINES) summaries.push(...(await benchEngine(engine, cleanup, tmp)));
  const ok = report(summaries);
  mkdirSync(join(ROOT, '.bench'), { recursive: true });
  writeFileSync(
    join(ROOT, '.bench', 'api.json'),
    `${JSON.stringify({ date: new Date().toISOString(), rounds: ROUNDS, duration: DURATION, summaries }, null, 2)}\n`,
  );
  log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other work on the machine skews the numbers)`,
  );
  if (!ok) log('\nFAIL: a bar was missed.');
  else if (summaries.some((x) => x.bar !== undefined)) log('\nAll bars met.');
  else log('\nNo case with a bar ran, so no bar was checked.');
  return ok ? 0 : 1;
}

await runBench('bench:api', main);
