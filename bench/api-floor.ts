/**
 * Floor benchmark for the saved-URL POST: `npm run bench:api-floor`.
 *
 * The issue's POST bar (Tidings ≥ 0.40 of the ceiling on SQLite) is checked by `npm run bench:api`. This
 * bench shows where the floor of the prescribed stack (Fastify + a logger + an SQLite transaction per
 * batch) lies on the same machine in the same run, so that "Tidings is at the floor" is a measured claim,
 * not an opinion. Three servers, each in its own process, take the same POSTs (10 connections, a distinct
 * URL each): the bare node:http ceiling of bench:api (bench/ceiling.ts), the minimal Fastify +
 * better-sqlite3 app of bench/floor-server.ts (the floor), and Tidings itself (built, `node
 * dist/cli/main.js serve` on a fresh SQLite file, default log level, logs to /dev/null). Runs alternate
 * ceiling / minimal / Tidings for several rounds after a warm-up of each; printed are req/s, the server's
 * CPU time per request (utime + stime of its process, from /proc/PID/stat, over the run) and the ratios
 * minimal / ceiling and Tidings / ceiling (of the medians, and per round). There is no bar: exit 0.
 *
 * Measured when this was written, on a 2-vCPU VM (BENCHMARKS.md): minimal 0.34–0.41 and Tidings
 * 0.34–0.38 of the ceiling, both ~57–73 µs of server CPU per POST, the ceiling ~17–20 µs.
 *
 * Environment: BENCH_ROUNDS (5), BENCH_DURATION seconds per run (5), BENCH_CONNECTIONS (10).
 * Writes .bench/api-floor.json. Linux only (/proc).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Options, type Result } from 'autocannon';
import {
  type Cleanup,
  firstLine,
  freePort,
  runBench,
  runCommand,
  stopChild,
  waitUntilReady,
} from './processes.js';
import { fmt, load, log } from './report.js';
import { envInt } from './env.js';
import { distinctSaves } from './posts.js';
import { median } from './rounds.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const CEILING = join(ROOT, 'bench', 'ceiling.ts');
const FLOOR = join(ROOT, 'bench', 'floor-server.ts');

const ROUNDS = envInt('BENCH_ROUNDS', 5);
const DURATION = envInt('BENCH_DURATION', 5);
const WARMUP = 2;
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const POST_SUCCESS = '{"code":0,"message":"saved for the next digest"}';

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
async function checkPost(who: Server, url: string): Promise<void> {
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

/** A child that prints {"port": N} on stdout once it listens. */
async function startWithPort(
  cleanup: Cleanup,
  args: string[],
): Promise<{ child: ChildProcess; port: number }> {
  const child = cleanup.track(
    spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT }),
  );
  const { port } = JSON.parse(await firstLine(child)) as { port: number };
  return { child, port };
}

async function startTargets(cleanup: Cleanup, tmp: string): Promise<Record<Server, Target>> {
  const getBody = join(tmp, 'get-body.json');
  writeFileSync(getBody, '[]');
  const ceiling = await startWithPort(cleanup, ['--import', 'tsx', CEILING, getBody]);

  const floorKey = `floor_${randomBytes(24).toString('base64url')}`;
  const minimal = await startWithPort(cleanup, ['--import', 'tsx', FLOOR, join(tmp, 'floor.db'), floorKey]);

  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: join(tmp, 'tidings.db'),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    TIDINGS_QUEUE_LIMIT: '1000000',
  };
  const out = await runCommand(cleanup, [CLI, 'account', 'create', '--name', 'b', '--json'], env);
  const parsed = JSON.parse(out.trim()) as { apiKey?: unknown };
  if (typeof parsed.apiKey !== 'string') throw new Error(`account create printed no key: ${out}`);
  // stdout and stderr (the JSON log lines) go to /dev/null: writing them is part of the cost.
  const tidings = cleanup.track(spawn(process.execPath, [CLI, 'serve'], { env, stdio: 'ignore', cwd: tmp }));
  await waitUntilReady(tidings, `http://127.0.0.1:${port}/healthz`);

  const path = (key: string): string => `/api/v1/articles?apiKey=${encodeURIComponent(key)}`;
  const targets: Record<Server, Target> = {
    ceiling: { child: ceiling.child, url: `http://127.0.0.1:${ceiling.port}${path('k')}` },
    minimal: { child: minimal.child, url: `http://127.0.0.1:${minimal.port}${path(floorKey)}` },
    tidings: { child: tidings, url: `http://127.0.0.1:${port}${path(parsed.apiKey)}` },
  };
  for (const who of SERVERS) await checkPost(who, targets[who].url);
  return targets;
}

async function main(cleanup: Cleanup): Promise<number> {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run npm run build (npm run bench:api-floor does)`);
  const loadStart = load();
  log(`Tidings API floor benchmark (POST A), ${new Date().toISOString()}`);
  log(
    `machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}; ` +
      `${ROUNDS} rounds × ${DURATION} s per server after ${WARMUP} s warm-ups, ${CONNECTIONS} connections, ` +
      `pipelining 1; load average ${loadStart}`,
  );
  const tmp = mkdtempSync(join(tmpdir(), 'tidings-bench-floor-'));
  cleanup.defer(`remove ${tmp}`, () => rmSync(tmp, { recursive: true, force: true }));
  const targets = await startTargets(cleanup, tmp);

  for (const who of SERVERS) await measure(`${who} warm-up`, targets[who], WARMUP);
  const runs: Record<Server, Run[]> = { ceiling: [], minimal: [], tidings: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const who of SERVERS) {
      const r = await measure(who, targets[who], DURATION);
      runs[who].push(r);
      log(
        `  round ${round}  ${who.padEnd(7)} ${fmt(r.rps).padStart(8)} req/s  ` +
          `${fmt(r.cpuUsPerRequest, 1).padStart(6)} µs CPU/req`,
      );
    }
  }
  for (const who of SERVERS) await stopChild(targets[who].child);

  const ceilingRps = median(runs.ceiling.map((r) => r.rps));
  const summaries = SERVERS.map((who) => {
    const rps = median(runs[who].map((r) => r.rps));
    return {
      server: who,
      rps,
      cpuUsPerRequest: median(runs[who].map((r) => r.cpuUsPerRequest)),
      ratio: rps / ceilingRps,
      roundRatios: runs[who].map((r, i) => r.rps / (runs.ceiling[i]?.rps ?? NaN)),
    };
  });
  log('\nMedians of the rounds; ratio = median req/s / the ceiling’s median req/s:\n');
  log('| server | req/s | CPU µs/req | ratio to ceiling | per-round ratios |');
  log('| --- | ---: | ---: | ---: | --- |');
  for (const s of summaries) {
    log(
      `| ${s.server} | ${fmt(s.rps)} | ${fmt(s.cpuUsPerRequest, 1)} | ${s.ratio.toFixed(2)} | ` +
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
        summaries,
        runs,
      },
      null,
      2,
    )}\n`,
  );
  log(`\nload average at the start: ${loadStart}; at the end: ${loadEnd} (other work skews the numbers)`);
  return 0;
}

await runBench('bench:api-floor', main);
