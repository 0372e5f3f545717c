/**
 * bench:footprint: what an idle `tidings serve` costs to start and to keep, against a bare Node.js process
 * in the same run, and what it takes while it polls many feeds (issue 26).
 *
 * 1. Start-up: `node dist/app/main.js serve` on a fresh SQLite data directory, BENCH_STARTS times (each
 *    its own directory); the time from spawn to the first 200 from /healthz (polled every 10 ms).
 * 2. Idle: the first of those servers is left running, untouched, beside a bare `node -e` process spawned
 *    at the same moment; the resident size (VmRSS, /proc/PID/status) of both 60 s after their spawn.
 * 3. Polling: the idle server's first account imports an OPML list of BENCH_FEEDS feeds (the CLI's
 *    `opml import`, on the same database) served by bench/feeds-server.ts on BENCH_HOSTS loopback
 *    addresses (TIDINGS_ALLOW_PRIVATE_NETWORKS=true); its poller fetches them all. VmRSS is sampled every
 *    100 ms from the import on; reported: the peak, and the time from the first feed request the feed
 *    server saw to the last of BENCH_FEEDS.
 *
 * Targets: the idle server at most 80 MiB at 60 s; the median start-up at most 0.5 s. Exits 1 when one
 * is missed. Env: BENCH_STARTS (5), BENCH_FEEDS (1000), BENCH_HOSTS (20), BENCH_IDLE_S (60).
 * Run: npm run bench:footprint (builds first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { envInt } from './env.js';
import { feedUrl, xmlEscape } from './feeds-corpus.js';
import { type Cleanup, firstLine, freePort, runBench, runCommand, stopChild } from './processes.js';
import { fmt, load, log, mb } from './report.js';
import { CLI } from './targets.js';

const STARTS = envInt('BENCH_STARTS', 5);
const FEEDS = envInt('BENCH_FEEDS', 1000);
const HOSTS = envInt('BENCH_HOSTS', 20);
const IDLE_S = envInt('BENCH_IDLE_S', 60);
const IDLE_BAR = 80 * 2 ** 20;
const START_BAR_MS = 500;
const POLL_LIMIT_MS = 10 * 60_000;

/** VmRSS of a process in bytes; null once it is gone. */
function rssOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] === undefined ? null : Number(m[1]) * 1024;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system, all threads) a process has used; clock ticks of 10 ms. */
function cpuOf(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function serveEnv(dir: string, port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: join(dir, 'tidings.db'),
    LOG_LEVEL: 'warn',
    TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}

interface Started {
  child: ChildProcess;
  spawnedAt: number;
  readyMs: number;
  /** CPU seconds the process had used when it first answered: the start-up's cost, whatever the load. */
  readyCpu: number;
  env: NodeJS.ProcessEnv;
  base: string;
  stdout: string[];
}

/** Spawns serve on a fresh directory and times it to its first 200 from /healthz. */
async function startServe(cleanup: Cleanup, dir: string): Promise<Started> {
  mkdirSync(dir);
  const port = await freePort();
  const env = serveEnv(dir, port);
  const base = `http://127.0.0.1:${port}`;
  const spawnedAt = performance.now();
  const child = cleanup.track(
    spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  const stdout: string[] = [];
  child.stdout?.on('data', (d: Buffer) => stdout.push(d.toString()));
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error('serve exited at start');
    try {
      const res = await fetch(`${base}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (performance.now() - spawnedAt > 60_000) throw new Error('serve did not answer /healthz in 60 s');
    await sleep(10);
  }
  const readyMs = performance.now() - spawnedAt;
  return { child, spawnedAt, readyMs, readyCpu: cpuOf(child.pid), env, base, stdout };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? NaN;
};

/** The first account's id, from the lines serve printed when it created it. */
function firstAccountId(stdout: readonly string[]): string {
  const m = /created a first account \(id (\d+)/.exec(stdout.join(''));
  if (m?.[1] === undefined) throw new Error('serve printed no first account');
  return m[1];
}

function opmlOf(origins: readonly string[]): string {
  const outlines = Array.from({ length: FEEDS }, (_, i) => {
    const url = xmlEscape(feedUrl(origins, i).url);
    return `<outline type="rss" text="Bench feed ${i}" xmlUrl="${url}"/>`;
  });
  return `<?xml version="1.0"?>\n<opml version="2.0"><head><title>bench</title></head><body>\n${outlines.join('\n')}\n</body></opml>\n`;
}

interface PollRun {
  seconds: number;
  peakRss: number;
  requests: number;
}

async function pollFeeds(cleanup: Cleanup, serve: Started, tmp: string): Promise<PollRun> {
  const addresses = Array.from(
    { length: HOSTS },
    (_, i) => `127.0.${1 + Math.floor(i / 254)}.${1 + (i % 254)}`,
  );
  const server = cleanup.track(
    spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'feeds-server.ts'), ...addresses], {
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const { origins } = JSON.parse(await firstLine(server)) as { origins: string[] };
  const stats = async (): Promise<number> => {
    const res = await fetch(`${origins[0] ?? ''}/stats`);
    return ((await res.json()) as { requests: number }).requests;
  };
  const file = join(tmp, 'feeds.opml');
  writeFileSync(file, opmlOf(origins));
  let peak = rssOf(serve.child.pid) ?? 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(serve.child.pid) ?? 0);
  }, 100);
  try {
    const account = firstAccountId(serve.stdout);
    const out = await runCommand(
      cleanup,
      [CLI, 'opml', 'import', '--account', account, '--json', file],
      serve.env,
    );
    log(`  opml import: ${out.trim()}`);
    const began = performance.now();
    let first: number | null = null;
    let requests = 0;
    while (requests < FEEDS) {
      if (performance.now() - began > POLL_LIMIT_MS) throw new Error(`only ${requests} feeds polled in time`);
      await sleep(100);
      requests = await stats();
      if (first === null && requests > 0) first = performance.now();
    }
    const seconds = (performance.now() - (first ?? began)) / 1000;
    await sleep(2000); // the last feeds' items are written after their fetch
    return { seconds, peakRss: peak, requests };
  } finally {
    clearInterval(sampler);
    await stopChild(server);
  }
}

await runBench('bench:footprint', async (cleanup) => {
  const tmp = mkdtempSync(join(tmpdir(), 'tidings-footprint-'));
  cleanup.defer('remove the temporary directory', () => rmSync(tmp, { recursive: true, force: true }));
  log(
    `bench:footprint: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}, load ${load()}`,
  );

  const bare = cleanup.track(
    spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' }),
  );
  const bareAt = performance.now();
  const idle = await startServe(cleanup, join(tmp, 'start-0'));
  const starts = [idle.readyMs];
  const cpu = [idle.readyCpu];
  for (let i = 1; i < STARTS; i++) {
    const s = await startServe(cleanup, join(tmp, `start-${i}`));
    starts.push(s.readyMs);
    cpu.push(s.readyCpu);
    await stopChild(s.child);
  }
  log(`  spawn → first 200 from /healthz, ${STARTS} starts: ${starts.map((ms) => fmt(ms)).join(', ')} ms`);
  log(`  CPU used by then: ${cpu.map((c) => c.toFixed(2)).join(', ')} s`);

  await sleep(Math.max(0, bareAt + IDLE_S * 1000 - performance.now()));
  const bareRss = rssOf(bare.pid) ?? NaN;
  await sleep(Math.max(0, idle.spawnedAt + IDLE_S * 1000 - performance.now()));
  const idleRss = rssOf(idle.child.pid) ?? NaN;
  log(`  resident at ${IDLE_S} s: bare node ${mb(bareRss)}, idle serve ${mb(idleRss)} (load ${load()})`);
  await stopChild(bare);

  const poll = await pollFeeds(cleanup, idle, tmp);
  log(
    `  polling ${fmt(FEEDS)} feeds: all fetched in ${poll.seconds.toFixed(1)} s; peak resident ${mb(poll.peakRss)}`,
  );
  await stopChild(idle.child);
  const code = idle.child.exitCode ?? idle.child.signalCode;

  const startMedian = median(starts);
  log('\n| measure | bare node | serve | target |');
  log('| --- | ---: | ---: | ---: |');
  log(
    `| spawn → /healthz 200, median of ${STARTS} (min–max) | – | ${fmt(startMedian)} ms (${fmt(Math.min(...starts))}–${fmt(Math.max(...starts))}) | ≤ ${START_BAR_MS} ms |`,
  );
  log(`| CPU used by the first 200, median | – | ${median(cpu).toFixed(2)} s | – |`);
  log(`| resident at ${IDLE_S} s, idle | ${mb(bareRss)} | ${mb(idleRss)} | ≤ ${mb(IDLE_BAR)} |`);
  log(
    `| peak resident polling ${fmt(FEEDS)} feeds (${poll.seconds.toFixed(1)} s) | – | ${mb(poll.peakRss)} | – |`,
  );
  log(`load ${load()}; serve exited with ${String(code)}`);
  const missed = [
    ...(idleRss > IDLE_BAR ? [`idle resident ${mb(idleRss)} > ${mb(IDLE_BAR)}`] : []),
    ...(startMedian > START_BAR_MS ? [`start-up ${fmt(startMedian)} ms > ${START_BAR_MS} ms`] : []),
  ];
  if (missed.length > 0) log(`\nTARGET MISSED: ${missed.join('; ')}`);
  return missed.length > 0 ? 1 : 0;
});
