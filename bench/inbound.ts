/**
 * bench:inbound: newsletters taken in a second through each way in (issue 34 point 10), into a real
 * `tidings serve` (workers on, for the IMAP watcher), on SQLite and (when reachable) PostgreSQL:
 *
 * 1. SMTP: BENCH_MESSAGES newsletters of about 100 KB, BENCH_CLIENTS nodemailer clients at once (each a
 *    connection kept open, as a mail server delivers), to TIDINGS_INBOUND_SMTP_PORT; meanwhile one client
 *    asks /healthz over and over: its p99.
 * 2. HTTP: as many, POST /inbound/email, BENCH_CLIENTS at once.
 * 3. IMAP: as many, APPENDed to a mailbox of a real Dovecot (src/test/dovecot.ts) beside the watched one,
 *    then MOVEd into it at once; the time until the last is stored.
 *
 * Messages a second are the messages over the time until the last was committed (each way acknowledges
 * only then; for IMAP the count in the database). Peak VmRSS of serve, sampled every 50 ms, per phase.
 * Env: BENCH_MESSAGES (500), BENCH_CLIENTS (8), BENCH_ENGINES (sqlite,postgres), BENCH_PG_URL.
 * Run: npm run bench:inbound (builds first; needs /usr/sbin/dovecot, as the tests do).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTransport } from 'nodemailer';
import { openStore } from '../src/store/db.js';
import { Dovecot } from '../src/test/dovecot.js';
import { alternative } from '../src/test/newsletterFixtures.js';
import { tryConnect } from '../src/test/process.js';
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

/** Peak VmRSS of `pid` while `fn` runs. */
async function withPeak<T>(
  pid: number | undefined,
  fn: () => Promise<T>,
): Promise<{ value: T; peak: number }> {
  let peak = rssOf(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  try {
    return { value: await fn(), peak };
  } finally {
    clearInterval(timer);
  }
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
  const child = cleanup.track(
    spawn(process.execPath, [CLI, 'serve'], {
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

  // 1. SMTP, with /healthz asked throughout.
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
  const health = { on: true };
  const latencies: number[] = [];
  const healthLoop = (async () => {
    while (health.on) {
      const t0 = performance.now();
      const res = await fetch(`${base}/healthz`);
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      await sleep(20);
    }
  })();
  let refused = 0;
  const reasons = new Map<string, number>();
  const smtpStart = performance.now();
  const smtp = await withPeak(child.pid, () =>
    inParallel(MESSAGES, CLIENTS, async (client, n) => {
      await transports[client]
        ?.sendMail({
          envelope: { from: 'letter@bench.example', to: address },
          raw: newsletter(address, n, 'smtp'),
        })
        .catch((err: unknown) => {
          refused++;
          const e = err as { responseCode?: number; code?: string };
          const why = String(e.responseCode ?? e.code ?? 'error');
          reasons.set(why, (reasons.get(why) ?? 0) + 1);
        });
    }),
  );
  const smtpSeconds = (performance.now() - smtpStart) / 1000;
  health.on = false;
  await healthLoop;
  for (const t of transports) t.close();
  latencies.sort((a, b) => a - b);
  const smtpStored = await stored('smtp');
  ok &&= smtpStored === MESSAGES && refused === 0;
  log(
    `  SMTP: ${fmt(MESSAGES / smtpSeconds, 1)} msg/s (${smtpStored} stored, ${refused} refused ${JSON.stringify([...reasons])}, ${fmt(smtpSeconds, 1)} s); ` +
      `/healthz p50 ${fmt(percentile(latencies, 50), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms over ${latencies.length}; peak VmRSS ${mb(smtp.peak)}`,
  );

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
    `  HTTP: ${fmt(MESSAGES / httpSeconds, 1)} msg/s (${await stored('http')} stored, ${failed} failed); peak VmRSS ${mb(http.peak)}`,
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
    `  IMAP: ${fmt(imapStored / imapSeconds, 1)} msg/s (${imapStored} stored, ${fmt(imapSeconds, 1)} s); peak VmRSS ${mb(imap.peak)}`,
  );
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
