/**
 * API benchmark: `npm run bench:api`. Tidings (built, `node dist/cli/main.js serve`, default log level,
 * logs to /dev/null) against a bare node:http "ceiling" that answers the same bytes, on SQLite and
 * PostgreSQL, alternating ceiling / Tidings runs for several rounds. Prints req/s, p99 and the ratio to
 * the ceiling (medians of the rounds) and exits 1 when a SQLite bar is missed. See BENCHMARKS.md.
 *
 * Environment: BENCH_ROUNDS (3), BENCH_DURATION seconds per run (5), BENCH_CONNECTIONS (10),
 * BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres), BENCH_ENGINES (sqlite,postgres),
 * BENCH_CPU_PROF=DIR (run Tidings under node --cpu-prof, profiles written to DIR when it stops).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Options, type Result } from 'autocannon';
import {
  type Cleanup,
  firstLine,
  freshDatabase,
  freePort,
  runBench,
  runCommand,
  stopChild,
  waitUntilReady,
} from './processes.js';
import { envInt } from './env.js';
import { distinctSaves } from './posts.js';

type Engine = 'sqlite' | 'postgres';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const CEILING = join(ROOT, 'bench', 'ceiling.ts');

const ROUNDS = envInt('BENCH_ROUNDS', 3);
const DURATION = envInt('BENCH_DURATION', 5);
const WARMUP = 2;
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const PG_ADMIN = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
const CPU_PROF = process.env.BENCH_CPU_PROF;
const SEED_ITEMS = 100;
const POST_SUCCESS = '{"code":0,"message":"saved for the next digest"}';
/** Minimum Tidings / ceiling throughput ratios on SQLite; PostgreSQL is reported without a bar. */
const BARS: Record<string, number> = { 'GET A': 0.3, 'POST A': 0.4 };

interface CaseSpec {
  name: string;
  /** The autocannon request for a server at base, with the key of the account the case uses. */
  options: (base: string) => Options;
}

interface Summary {
  engine: Engine;
  name: string;
  ceiling: { rps: number; p99: number };
  tidings: { rps: number; p99: number };
  ratio: number;
  bar: number | undefined;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};
const fmtRps = (n: number): string => Math.round(n).toLocaleString('en-US');
const fmtMs = (n: number): string => `${n.toFixed(2)} ms`;
const log = (line: string): void => void process.stdout.write(`${line}\n`);

function cannon(options: Options): Promise<Result> {
  return new Promise((ok, fail) => {
    autocannon({ connections: CONNECTIONS, pipelining: 1, timeout: 10, ...options }, (err, result) => {
      if (err !== null) fail(err);
      else ok(result);
    });
  });
}

/** POSTs that each save a distinct URL, so every Tidings request is a real insert. */
function postOptions(url: string): Options {
  return { url, requests: distinctSaves() };
}

async function measure(label: string, options: Options, duration: number): Promise<Result> {
  const result = await cannon({ ...options, duration });
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0 || result['2xx'] === 0) {
    throw new Error(
      `${label}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers ` +
        `(${result['2xx']} 2xx); the benchmark is not valid`,
    );
  }
  return result;
}

/** ceiling, Tidings, ceiling, Tidings…, after a warm-up of each. */
async function runCase(engine: Engine, spec: CaseSpec, ceiling: string, tidings: string): Promise<Summary> {
  const targets = [
    { who: 'ceiling' as const, base: ceiling },
    { who: 'tidings' as const, base: tidings },
  ];
  for (const t of targets)
    await measure(`${engine} ${spec.name} ${t.who} warm-up`, spec.options(t.base), WARMUP);
  const runs = { ceiling: [] as Result[], tidings: [] as Result[] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const t of targets) {
      const r = await measure(`${engine} ${spec.name} ${t.who}`, spec.options(t.base), DURATION);
      runs[t.who].push(r);
      log(
        `  ${engine.padEnd(8)} ${spec.name.padEnd(7)} round ${round}  ${t.who.padEnd(7)} ` +
          `${fmtRps(r.requests.average).padStart(8)} req/s  p99 ${fmtMs(r.latency.p99)}`,
      );
    }
  }
  const sum = (rs: Result[]): { rps: number; p99: number } => ({
    rps: median(rs.map((r) => r.requests.average)),
    p99: median(rs.map((r) => r.latency.p99)),
  });
  const c = sum(runs.ceiling);
  const t = sum(runs.tidings);
  return {
    engine,
    name: spec.name,
    ceiling: c,
    tidings: t,
    ratio: t.rps / c.rps,
    bar: engine === 'sqlite' ? BARS[spec.name] : undefined,
  };
}

async function createAccount(cleanup: Cleanup, env: NodeJS.ProcessEnv, name: string): Promise<string> {
  const out = await runCommand(cleanup, [CLI, 'account', 'create', '--name', name, '--json'], env);
  const parsed = JSON.parse(out.trim()) as { apiKey?: unknown };
  if (typeof parsed.apiKey !== 'string') throw new Error(`account create printed no key: ${out}`);
  return parsed.apiKey;
}

async function expectOk(res: Response, what: string): Promise<Buffer> {
  const body = Buffer.from(await res.arrayBuffer());
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${body.toString()}`);
  return body;
}

async function benchEngine(engine: Engine, cleanup: Cleanup, tmp: string): Promise<Summary[]> {
  const dir = join(tmp, engine);
  mkdirSync(dir);
  const databaseUrl = await freshDatabase(engine, cleanup, dir, PG_ADMIN);
  if (databaseUrl === null) return [];
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    TIDINGS_QUEUE_LIMIT: '1000000',
  };
  const getKey = await createAccount(cleanup, env, 'bench-get');
  const postKey = await createAccount(cleanup, env, 'bench-post');

  // stdout and stderr (the JSON log lines, one per request) go to /dev/null: writing them is part of the cost.
  const prof = CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(CPU_PROF)}`];
  const server = cleanup.track(
    spawn(process.execPath, [...prof, CLI, 'serve'], { env, stdio: 'ignore', cwd: dir }),
  );
  const tidings = `http://127.0.0.1:${port}`;
  await waitUntilReady(server, `${tidings}/healthz`);

  const pathA = (key: string): string => `/api/v1/articles?apiKey=${key}`;
  for (let i = 1; i <= SEED_ITEMS; i++) {
    const res = await fetch(`${tidings}${pathA(getKey)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `url=${encodeURIComponent(`https://example.com/articles/${i}?ref=seed`)}&title=Seed+article+${i}`,
    });
    const body = (await expectOk(res, 'seeding')).toString();
    if (body !== POST_SUCCESS) throw new Error(`seeding: unexpected answer ${body}`);
  }
  const getBody = await expectOk(await fetch(`${tidings}${pathA(getKey)}`), 'GET');
  const items = JSON.parse(getBody.toString()) as unknown[];
  if (items.length !== SEED_ITEMS) throw new Error(`GET shows ${items.length} items, not ${SEED_ITEMS}`);
  const bodyFile = join(dir, 'get-body.json');
  writeFileSync(bodyFile, getBody);

  const ceilingChild = cleanup.track(
    spawn(process.execPath, ['--import', 'tsx', CEILING, bodyFile], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: ROOT,
    }),
  );
  const { port: ceilingPort } = JSON.parse(await firstLine(ceilingChild)) as { port: number };
  const ceiling = `http://127.0.0.1:${ceilingPort}`;
  const ceilingGet = await expectOk(await fetch(`${ceiling}${pathA(getKey)}`), 'ceiling GET');
  if (!ceilingGet.equals(getBody)) throw new Error('the ceiling does not answer the same GET bytes');

  const cases: CaseSpec[] = [
    { name: 'GET A', options: (base) => ({ url: `${base}${pathA(getKey)}` }) },
    { name: 'GET B', options: (base) => ({ url: `${base}/api?api_key=${getKey}` }) },
    { name: 'POST A', options: (base) => postOptions(`${base}${pathA(postKey)}`) },
  ];
  log(`\n${engine}: Tidings on ${tidings} (${databaseUrl}), ceiling on ${ceiling}`);
  const summaries: Summary[] = [];
  for (const spec of cases) summaries.push(await runCase(engine, spec, ceiling, tidings));

  const after = JSON.parse(
    (await expectOk(await fetch(`${tidings}${pathA(getKey)}`), 'GET after')).toString(),
  ) as unknown[];
  if (after.length !== SEED_ITEMS) throw new Error('the GET account changed during the benchmark');
  await stopChild(ceilingChild);
  await stopChild(server);
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
  if (!ok) log('\nFAIL: a SQLite bar was missed.');
  else if (summaries.some((x) => x.bar !== undefined)) log('\nAll SQLite bars met.');
  else log('\nNo SQLite case ran, so no bar was checked.');
  return ok ? 0 : 1;
}

await runBench('bench:api', main);
