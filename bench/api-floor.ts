/**
 * Floor benchmark for the saved-URL POST: `npm run bench:api-floor`.
 *
 * The issue's POST bars (Tidings ≥ 0.40 of the ceiling on SQLite, checked by `npm run bench:api`; ≥ 0.20
 * on PostgreSQL, which it reports) are about Tidings alone. This bench shows where the floor of the prescribed stack (Fastify + a logger + the
 * database's durable write per batch) lies on the same machine in the same run, so that "Tidings is at the
 * floor" is a measured claim, not an opinion. Per engine, three servers, each in its own process, take the
 * same POSTs (10 connections, each a closed loop, one account, a distinct URL per request, every 2xx
 * committed before it is sent):
 * - the bare node:http ceiling of bench:api (bench/ceiling.ts);
 * - the minimal app of the stack, which does only the durable work Tidings cannot skip (bench/floor-app.ts,
 *   with its storage): on SQLite bench/floor-server.ts (better-sqlite3, its own file with Tidings' columns
 *   and indexes, one transaction per batch); on PostgreSQL bench/floor-server-pg.ts (pg, one statement per
 *   batch, on a fresh database of its own that `tidings account create` migrated to Tidings' schema, so
 *   that its NOTIFYs reach no Tidings process);
 * - Tidings itself (built, `node dist/app/main.js serve`, default log level, logs to /dev/null, no
 *   in-process workers: TIDINGS_WORKER=false) on a fresh SQLite file or a fresh PostgreSQL database
 *   (bench/processes.ts freshDatabase, dropped afterwards).
 * Runs alternate ceiling / minimal / Tidings for several rounds after a warm-up of each; printed are req/s,
 * the server's CPU time per request (utime + stime of its process, from /proc/PID/stat, over the run; on
 * PostgreSQL the database server's own CPU is not in it) and the ratios minimal / ceiling and Tidings /
 * ceiling (of the medians, and per round). There is no bar: exit 0.
 *
 * Measured when the SQLite floor was written, on a 2-vCPU VM (BENCHMARKS.md): minimal 0.34–0.41 and
 * Tidings 0.34–0.38 of the ceiling, both ~57–73 µs of server CPU per POST, the ceiling ~17–20 µs. The
 * PostgreSQL floor's first run (BENCH_ENGINES=postgres, load average 2.3 → 3.4 on the same VM): minimal
 * 0.27 (rounds 0.18–0.29) at 95 µs per POST, Tidings 0.19 (rounds 0.11–0.27) at 125 µs, the ceiling 26 µs.
 *
 * Environment: BENCH_ROUNDS (5), BENCH_DURATION seconds per run (5), BENCH_CONNECTIONS (10),
 * BENCH_ENGINES (sqlite,postgres), BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres; when it
 * cannot be reached the PostgreSQL runs are skipped). Writes .bench/api-floor.json (both engines). Linux
 * only (/proc).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Options, type Result } from 'autocannon';
import { type Cleanup, firstLine, freshDatabase, runBench, stopChild } from './processes.js';
import { fmt, load, log } from './report.js';
import { envInt } from './env.js';
import { distinctSaves } from './posts.js';
import { median } from './rounds.js';
import { CLI, POST_SUCCESS, createAccount, pathA, serveEnv, startServe } from './targets.js';

type Engine = 'sqlite' | 'postgres';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CEILING = join(ROOT, 'bench', 'ceiling.ts');
const FLOOR: Record<Engine, string> = {
  sqlite: join(ROOT, 'bench', 'floor-server.ts'),
  postgres: join(ROOT, 'bench', 'floor-server-pg.ts'),
};

const ROUNDS = envInt('BENCH_ROUNDS', 5);
const DURATION = envInt('BENCH_DURATION', 5);
const WARMUP = 2;
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const PG_ADMIN = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',').map((e) => e.trim());
for (const e of ENGINES) {
  if (e !== 'sqlite' && e !== 'postgres') throw new Error(`BENCH_ENGINES: unknown engine ${e}`);
}

const SERVERS = ['ceiling', 'minimal', 'tidings'] as const;
type Server = (typeof SERVERS)[number];

interface Target {
  child: ChildProcess;
  /** The POST URL, with the key the server accepts. */
  url: string;
}

interface Run {
  rps: number;
  cpuUsPerRequest: number;
}

interface Summary {
  engine: Engine;
  server: Server;
  rps: number;
  cpuUsPerRequest: number;
  ratio: number;
  roundRatios: number[];
}

/** Clock ticks per second of /proc/PID/stat's times. */
const CLK_TCK = ((): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system, all threads) the process has used so far, in µs. */
function cpuUs(pid: number | undefined): number {
  if (pid === undefined) throw new Error('the server has no pid');
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces: state is [0].
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`cannot read the CPU times of ${pid}`);
  return (ticks / CLK_TCK) * 1e6;
}

const RUN_ID = `${process.pid}-${Date.now().toString(36)}`;

/** POSTs that each save a distinct URL, so every request is a real insert. */
function postOptions(url: string, duration: number): Options {
  return { url, connections: CONNECTIONS, pipelining: 1, timeout: 10, duration, requests: distinctSaves() };
}

async function measure(label: string, target: Target, duration: number): Promise<Run> {
  const before = cpuUs(target.child.pid);
  const result = await new Promise<Result>((ok, fail) => {
    autocannon(postOptions(target.url, duration), (err, r) => {
      if (err !== null) fail(err);
      else ok(r);
    });
  });
  const used = cpuUs(target.child.pid) - before;
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0 || result['2xx'] === 0) {
    throw new Error(
      `${label}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers ` +
        `(${result['2xx']} 2xx); the benchmark is not valid`,
    );
  }
  return { rps: result.requests.average, cpuUsPerRequest: used / result['2xx'] };
}

/** One POST by hand: the server must answer it with Tidings' "saved" bytes. */
async function checkPost(who: string, url: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `url=${encodeURIComponent(`https://example.com/check/${RUN_ID}`)}&title=Check`,
  });
  const body = await res.text();
  if (res.status !== 200 || body !== POST_SUCCESS) {
    throw new Error(`${who} answers a POST with HTTP ${res.status} ${body}`);
  }
}

/** A child that prints {"port": N} on stdout once it listens; its base URL. */
async function startWithPort(
  cleanup: Cleanup,
  args: string[],
): Promise<{ child: ChildProcess; base: string }> {
  const child = cleanup.track(
    spawn(process.execPath, ['--import', 'tsx', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: ROOT,
    }),
  );
  const { port } = JSON.parse(await firstLine(child)) as { port: number };
  return { child, base: `http://127.0.0.1:${port}` };
}

/** The minimal app of the engine, and the key it accepts; null when PostgreSQL cannot be reached. */
async function startMinimal(
  engine: Engine,
  cleanup: Cleanup,
  dir: string,
): Promise<{ child: ChildProcess; base: string; key: string } | null> {
  if (engine === 'sqlite') {
    const key = `floor_${randomBytes(24).toString('base64url')}`;
    return { ...(await startWithPort(cleanup, [FLOOR.sqlite, join(dir, 'floor.db'), key])), key };
  }
  // A database of its own, migrated to Tidings' schema by the CLI, with an account and its key.
  const databaseUrl = await freshDatabase(engine, cleanup, dir, PG_ADMIN, '_floor');
  if (databaseUrl === null) return null;
  const key = await createAccount(cleanup, serveEnv(databaseUrl), 'floor');
  return { ...(await startWithPort(cleanup, [FLOOR.postgres, databaseUrl])), key };
}

async function startTargets(
  engine: Engine,
  cleanup: Cleanup,
  dir: string,
): Promise<Record<Server, Target> | null> {
  const databaseUrl = await freshDatabase(engine, cleanup, dir, PG_ADMIN);
  if (databaseUrl === null) return null;
  const minimal = await startMinimal(engine, cleanup, dir);
  if (minimal === null) return null;

  const getBody = join(dir, 'get-body.json');
  writeFileSync(getBody, '[]');
  const ceiling = await startWithPort(cleanup, [CEILING, getBody]);

  const env = serveEnv(databaseUrl);
  const key = await createAccount(cleanup, env, 'b');
  const tidings = await startServe(cleanup, env, dir);

  const targets: Record<Server, Target> = {
    ceiling: { child: ceiling.child, url: `${ceiling.base}${pathA('k')}` },
    minimal: { child: minimal.child, url: `${minimal.base}${pathA(minimal.key)}` },
    tidings: { child: tidings.child, url: `${tidings.base}${pathA(key)}` },
  };
  for (const who of SERVERS) await checkPost(`${engine} ${who}`, targets[who].url);
  return targets;
}

/** The alternating rounds on one engine; null when it was skipped. */
async function benchEngine(
  engine: Engine,
  cleanup: Cleanup,
  tmp: string,
): Promise<{ summaries: Summary[]; runs: Record<Server, Run[]> } | null> {
  const dir = join(tmp, engine);
  mkdirSync(dir);
  const targets = await startTargets(engine, cleanup, dir);
  if (targets === null) return null;
  log(`\n${engine}:`);

  for (const who of SERVERS) await measure(`${engine} ${who} warm-up`, targets[who], WARMUP);
  const runs: Record<Server, Run[]> = { ceiling: [], minimal: [], tidings: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const who of SERVERS) {
      const r = await measure(`${engine} ${who}`, targets[who], DURATION);
      runs[who].push(r);
      log(
        `  ${engine.padEnd(8)} round ${round}  ${who.padEnd(7)} ${fmt(r.rps).padStart(8)} req/s  ` +
          `${fmt(r.cpuUsPerRequest, 1).padStart(6)} µs CPU/req`,
      );
    }
  }
  for (const who of SERVERS) await stopChild(targets[who].child);

  const ceilingRps = median(runs.ceiling.map((r) => r.rps));
  const summaries = SERVERS.map((who): Summary => {
    const rps = median(runs[who].map((r) => r.rps));
    return {
      engine,
      server: who,
      rps,
      cpuUsPerRequest: median(runs[who].map((r) => r.cpuUsPerRequest)),
      ratio: rps / ceilingRps,
      roundRatios: runs[who].map((r, i) => r.rps / (runs.ceiling[i]?.rps ?? NaN)),
    };
  });
  return { summaries, runs };
}

async function main(cleanup: Cleanup): Promise<number> {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run npm run build (npm run bench:api-floor does)`);
  const loadStart = load();
  log(`Tidings API floor benchmark (POST A), ${new Date().toISOString()}`);
  log(
    `machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}; ` +
      `${ROUNDS} rounds × ${DURATION} s per server after ${WARMUP} s warm-ups, ${CONNECTIONS} connections, ` +
      `pipelining 1; engines ${ENGINES.join(', ')}; load average ${loadStart}`,
  );
  const tmp = mkdtempSync(join(tmpdir(), 'tidings-bench-floor-'));
  cleanup.defer(`remove ${tmp}`, () => rmSync(tmp, { recursive: true, force: true }));

  const engines: { engine: Engine; summaries: Summary[]; runs: Record<Server, Run[]> }[] = [];
  for (const engine of ENGINES as Engine[]) {
    const done = await benchEngine(engine, cleanup, tmp);
    if (done !== null) engines.push({ engine, ...done });
  }

  log('\nMedians of the rounds; ratio = median req/s / the ceiling’s median req/s (same engine’s run):\n');
  log('| engine | server | req/s | CPU µs/req | ratio to ceiling | per-round ratios |');
  log('| --- | --- | ---: | ---: | ---: | --- |');
  for (const s of engines.flatMap((e) => e.summaries)) {
    log(
      `| ${s.engine} | ${s.server} | ${fmt(s.rps)} | ${fmt(s.cpuUsPerRequest, 1)} | ${s.ratio.toFixed(2)} | ` +
        `${s.roundRatios.map((x) => x.toFixed(2)).join(' ')} |`,
    );
  }
  const loadEnd = load();
  mkdirSync(join(ROOT, '.bench'), { recursive: true });
  writeFileSync(
    join(ROOT, '.bench', 'api-floor.json'),
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        rounds: ROUNDS,
        duration: DURATION,
        connections: CONNECTIONS,
        loadAverage: { start: loadStart, end: loadEnd },
        engines,
      },
      null,
      2,
    )}\n`,
  );
  log(`\nload average at the start: ${loadStart}; at the end: ${loadEnd} (other work skews the numbers)`);
  return 0;
}

await runBench('bench:api-floor', main);
