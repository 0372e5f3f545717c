/**
 * bench:inbound: newsletters taken in a second through each way in (issue 34 point 10), into a real
 * `tidings serve` (workers on, for the IMAP watcher), on SQLite and (when reachable) PostgreSQL:
 *
 * 1. SMTP: BENCH_MESSAGES newsletters of about 100 KB, BENCH_CLIENTS nodemailer clients at once (each a
 *    connection kept open, as a mail server delivers), to TIDINGS_INBOUND_SMTP_PORT; meanwhile a client in
 *    a process of its own asks /healthz every 20 ms: its p99.
 * 2. HTTP: as many, POST /inbound/email, BENCH_CLIENTS at once.
 * 3. IMAP: as many, APPENDed to a mailbox of a real Dovecot (src/test/dovecot.ts) beside the watched one,
 *    then MOVEd into it at once; the time until the last is stored.
 * 4. SMTP again, as in 1: 1 is serve's first messages (its parse threads start and compile as they read:
 *    about 350 ms of CPU a thread), this one what a serve that has been taking mail in does.
 *
 * Messages a second are the messages over the time until the last was committed (each way acknowledges
 * only then; for IMAP the count in the database). Peak VmRSS of serve, sampled every 50 ms, per phase. CPU a
 * message, per phase: serve's CPU time (all its threads, /proc/PID/stat) and its main thread's alone (the
 * one that answers /healthz), over the messages; on a loaded machine the wall-clock rate falls with the
 * load, the CPU a message does not, so 1000 ÷ (ms a message ÷ cores) is what an idle machine would allow.
 * Env: BENCH_MESSAGES (500), BENCH_CLIENTS (8), BENCH_ENGINES (sqlite,postgres), BENCH_PG_URL,
 * BENCH_CPU_PROF=DIR (serve under node --cpu-prof: a profile of each of its threads written to DIR when it
 * stops).
 * Run: npm run bench:inbound (builds first; needs /usr/sbin/dovecot, as the tests do).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTransport } from 'nodemailer';
import { openStore } from '../src/store/db.js';
import { Dovecot } from '../src/test/dovecot.js';
import { alternative } from '../src/test/newsletterFixtures.js';
import { tryConnect } from '../src/test/process.js';
import { procStat, threadCpuMs } from '../src/test/threadCpu.js';
import { envInt } from './env.js';
import { type Cleanup, freePort, freshDatabase, runBench, runCommand, waitUntilReady } from './processes.js';
import { fmt, load, log, mb } from './report.js';
import { CLI, serveEnv } from './targets.js';

const MESSAGES = envInt('BENCH_MESSAGES', 500);
const CLIENTS = envInt('BENCH_CLIENTS', 8);
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as ('sqlite' | 'postgres')[];
const PG_ADMIN = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECRET = 'bench-inbound-secret-0123456789';
const DOMAIN = 'inbound.example';
const CPU_PROF = process.env.BENCH_CPU_PROF;

/** A newsletter of about 100 KB: 38 paragraphs with links and a picture each, and its text part. */
function newsletter(to: string, n: number, way: string): Buffer {
  const paragraphs: string[] = [];
  const text: string[] = [];
  for (let p = 0; p < 38; p++) {
    const words = Array.from({ length: 160 }, (_, w) => `word${(n * 31 + p * 7 + w) % 997}`).join(' ');
    paragraphs.push(
      `<h2>Section ${p}</h2><p>${words} <a href="https://letter.example/p/${n}/${p}?utm_source=email">more</a></p>` +
        `<img src="https://cdn.letter.example/${n}/${p}.jpg" width="600" height="300" alt="">`,
    );
    text.push(words);
  }
  return alternative(
    {},
    {
      from: `"The Bench Letter" <letter@bench.example>`,
      to,
      subject: `Issue ${n} by ${way}`,
      messageId: `${way}-${n}@bench.example`,
      date: 'Tue, 03 Nov 2026 07:15:00 +0000',
    },
    text.join('\n\n'),
    `<html><body>${paragraphs.join('\n')}</body></html>`,
  );
}

function rssOf(pid: number | undefined): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid ?? 0}/status`, 'utf8'));
    return Number(m?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * CPU time of the threads of `pid` in three groups: `main` (the thread that answers requests), `lowered`
 * (threads that lowered their priority: the parse threads, lib/threads.ts lowerThreadPriority) and `other`
 * (V8's garbage collector helpers, libuv's pool, threads at the process's priority). Every thread is named
 * "node" here, so the nice value (field 19 of /proc/PID/task/TID/stat) tells them apart. Keyed by thread
 * id: a thread that ended between two reads takes its CPU with it (a parse thread is replaced after 2,000 messages).
 */
function cpuByThread(pid: number): Map<number, { group: ThreadGroup; ms: number }> {
  const threads = new Map<number, { group: ThreadGroup; ms: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`).map(Number)) {
    try {
      const { cpuMs: ms, nice } = procStat(`/proc/${pid}/task/${tid}/stat`);
      threads.set(tid, { group: tid === pid ? 'main' : nice > 0 ? 'lowered' : 'other', ms });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

type ThreadGroup = 'main' | 'lowered' | 'other';

interface Phase<T> {
  value: T;
  peak: number;
  /** serve's CPU in the phase, all threads and the main thread's, in ms. */
  cpuMs: number;
  mainMs: number;
  /** The CPU of serve's threads in the phase by group (cpuByThread), of those running at its end (ms). */
  byGroup: Map<ThreadGroup, number>;
}

/** Peak VmRSS and CPU time of `pid` while `fn` runs. */
async function withPeak<T>(pid: number | undefined, fn: () => Promise<T>): Promise<Phase<T>> {
  const id = pid ?? 0;
  let peak = rssOf(pid);
  const cpu0 = procStat(`/proc/${id}/stat`).cpuMs;
  const main0 = threadCpuMs(id);
  const threads0 = cpuByThread(id);
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  try {
    const value = await fn();
    const byGroup = new Map<ThreadGroup, number>();
    for (const [tid, { group, ms }] of cpuByThread(id)) {
      byGroup.set(group, (byGroup.get(group) ?? 0) + ms - (threads0.get(tid)?.ms ?? 0));
    }
    return {
      value,
      peak,
      cpuMs: procStat(`/proc/${id}/stat`).cpuMs - cpu0,
      mainMs: threadCpuMs(id) - main0,
      byGroup,
    };
  } finally {
    clearInterval(timer);
  }
}

/** "CPU 10.1 ms a message (main thread 2.7, parse threads 4.0, others 3.4)". */
const cpuLine = (phase: Phase<unknown>, messages: number): string => {
  const per = (group: ThreadGroup): string => fmt((phase.byGroup.get(group) ?? 0) / messages, 1);
  return (
    `CPU ${fmt(phase.cpuMs / messages, 1)} ms a message (main thread ${fmt(phase.mainMs / messages, 1)}, ` +
    `parse threads ${per('lowered')}, others ${per('other')})`
  );
};

/**
 * Asks `url` every 20 ms from a process of its own until stop(), which answers the latencies, sorted:
 * the bench's own event loop, busy writing messages to eight connections, would otherwise add its own
 * waits to serve's answer times.
 */
function startProbe(cleanup: Cleanup, url: string): { stop: () => Promise<number[]> } {
  const script = `
    const latencies = [];
    let on = true;
    process.stdin.on('end', () => (on = false)).resume();
    while (on) {
      const t0 = performance.now();
      const res = await fetch(${JSON.stringify(url)});
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    process.stdout.write(JSON.stringify(latencies));`;
  const child = cleanup.track(
    spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = once(child, 'exit');
  return {
    stop: async () => {
      child.stdin?.end();
      await exited;
      return (JSON.parse(out) as number[]).sort((a, b) => a - b);
    },
  };
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** `count` jobs, `clients` at once; each client runs `job(client, n)` in turn. */
async function inParallel(count: number, clients: number, job: (client: number, n: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = next++; n < count; n = next++) await job(client, n);
    }),
  );
}

async function engineRun(engine: 'sqlite' | 'postgres', cleanup: Cleanup, dir: string): Promise<boolean> {
  const databaseUrl = await freshDatabase(engine, cleanup, dir, PG_ADMIN, '_inbound');
  if (databaseUrl === null) return true;
  const dovecot = await Dovecot.start();
  cleanup.defer('stop dovecot', () => dovecot.close());
  const smtpPort = await freePort();
  const env = serveEnv(databaseUrl, {
    LOG_LEVEL: 'warn',
    TIDINGS_WORKER: 'true',
    TIDINGS_INBOUND_DOMAIN: DOMAIN,
    TIDINGS_INBOUND_SECRET: SECRET,
    TIDINGS_INBOUND_DAILY_LIMIT: '100000',
    TIDINGS_INBOUND_SMTP_PORT: String(smtpPort),
    TIDINGS_INBOUND_IMAP_URL: dovecot.url(),
  });
  const created = JSON.parse(
    await runCommand(cleanup, [CLI, 'account', 'create', '--name', 'bench', '--json'], env),
  ) as {
    id: number;
  };
  const address = (
    await runCommand(cleanup, [CLI, 'newsletters', 'address', '--account', String(created.id)], env)
  ).trim();
  const port = await freePort();
  const prof = CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(CPU_PROF, engine)}`];
  const child = cleanup.track(
    spawn(process.execPath, [...prof, CLI, 'serve'], {
      env: { ...env, PORT: String(port) },
      stdio: 'ignore',
      cwd: dir,
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, `${base}/healthz`);
  // /healthz answers from the first moment (http/starting.ts); the SMTP listener opens once serve started.
  for (let i = 0; (await tryConnect(smtpPort)) !== 'connected'; i++) {
    if (i > 600) throw new Error('the SMTP listener did not open in 60 s');
    await sleep(100);
  }
  const store = openStore(databaseUrl);
  cleanup.defer('close the store', () => store.close());
  const stored = async (via: 'smtp' | 'http' | 'imap'): Promise<number> => {
    const row = await store.db
      .selectFrom('newsletter_messages')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('via', '=', via)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  };
  const size = newsletter(address, 0, 'smtp').byteLength;
  log(`[${engine}] ${MESSAGES} newsletters of ${fmt(size / 1024)} KB each way, ${CLIENTS} clients at once`);
  let ok = true;

  // 1. SMTP, with /healthz asked throughout: first cold (serve's first messages: its parse threads start
  // and compile as they read), again warm at the end.
  const smtpPhase = async (label: string, way: string): Promise<boolean> => {
    const before = await stored('smtp');
    const transports = Array.from({ length: CLIENTS }, () =>
      createTransport({
        host: '127.0.0.1',
        port: smtpPort,
        secure: false,
        ignoreTLS: true,
        pool: true,
        maxConnections: 1,
        maxMessages: Infinity,
      }),
    );
    const probe = startProbe(cleanup, `${base}/healthz`);
    let refused = 0;
    const reasons = new Map<string, number>();
    const start = performance.now();
    const phase = await withPeak(child.pid, () =>
      inParallel(MESSAGES, CLIENTS, async (client, n) => {
        await transports[client]
          ?.sendMail({
            envelope: { from: 'letter@bench.example', to: address },
            raw: newsletter(address, n, way),
          })
          .catch((err: unknown) => {
            refused++;
            const e = err as { responseCode?: number; code?: string };
            const why = String(e.responseCode ?? e.code ?? 'error');
            reasons.set(why, (reasons.get(why) ?? 0) + 1);
          });
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    const latencies = await probe.stop();
    for (const t of transports) t.close();
    const count = (await stored('smtp')) - before;
    log(
      `  ${label}: ${fmt(MESSAGES / seconds, 1)} msg/s (${count} stored, ${refused} refused ${JSON.stringify([...reasons])}, ${fmt(seconds, 1)} s); ` +
        `/healthz p50 ${fmt(percentile(latencies, 50), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms over ${latencies.length}; peak VmRSS ${mb(phase.peak)}; ${cpuLine(phase, MESSAGES)}`,
    );
    return count === MESSAGES && refused === 0;
  };
  ok &&= await smtpPhase('SMTP (cold)', 'smtp');

  // 2. HTTP.
  let failed = 0;
  const httpStart = performance.now();
  const http = await withPeak(child.pid, () =>
    inParallel(MESSAGES, CLIENTS, async (_client, n) => {
      const res = await fetch(`${base}/inbound/email`, {
        method: 'POST',
        headers: { 'content-type': 'message/rfc822', authorization: `Bearer ${SECRET}` },
        body: new Uint8Array(newsletter(address, n, 'http')),
      });
      await res.arrayBuffer();
      if (res.status !== 202) failed++;
    }),
  );
  const httpSeconds = (performance.now() - httpStart) / 1000;
  ok &&= failed === 0;
  log(
    `  HTTP: ${fmt(MESSAGES / httpSeconds, 1)} msg/s (${await stored('http')} stored, ${failed} failed); peak VmRSS ${mb(http.peak)}; ${cpuLine(http, MESSAGES)}`,
  );

  // 3. IMAP: appended beside the watched mailbox, then moved into it at once.
  await dovecot.withClient(async (c) => {
    await c.mailboxCreate('Staging');
    for (let n = 0; n < MESSAGES; n++) await c.append('Staging', newsletter(address, n, 'imap'), []);
  });
  const imapStart = performance.now();
  const imap = await withPeak(child.pid, async () => {
    await dovecot.withClient(async (c) => {
      const lock = await c.getMailboxLock('Staging');
      try {
        await c.messageMove('1:*', 'INBOX');
      } finally {
        lock.release();
      }
    });
    for (let i = 0; i < 6000 && (await stored('imap')) < MESSAGES; i++) await sleep(100);
  });
  const imapSeconds = (performance.now() - imapStart) / 1000;
  const imapStored = await stored('imap');
  ok &&= imapStored === MESSAGES;
  log(
    `  IMAP: ${fmt(imapStored / imapSeconds, 1)} msg/s (${imapStored} stored, ${fmt(imapSeconds, 1)} s); peak VmRSS ${mb(imap.peak)}; ${cpuLine(imap, MESSAGES)}`,
  );

  // 4. SMTP again, warm.
  ok &&= await smtpPhase('SMTP (warm)', 'smtp-warm');
  return ok;
}

await runBench('bench:inbound', async (cleanup) => {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-inbound-bench-'));
  cleanup.defer('remove the temporary directory', () => rmSync(dir, { recursive: true, force: true }));
  log(
    `bench:inbound: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}, load ${load()}`,
  );
  let ok = true;
  for (const engine of ENGINES) ok = (await engineRun(engine, cleanup, dir)) && ok;
  log(`load after: ${load()}`);
  return ok ? 0 : 1;
});
