/**
 * The measured half of bench/digest.ts, which runs it twice per database, each time in a fresh process:
 *
 * - `seed`: migrates the (fresh) database and writes ACCOUNTS accounts, each with an email address, email
 *   on, a time zone out of five and its digest due a minute ago, and ITEMS queued items each (a fifth saved
 *   through the API, the rest from four of 200 feeds, with a title, a plain-text summary of about 250
 *   characters and a publication time). Bulk INSERTs, not timed.
 * - `measure`: the digest pass a worker makes, in its two steps, timed: `buildDueDigests` (claims the due
 *   accounts 20 at a time and builds each digest in its transaction, as src/digest/build.ts does) and then
 *   `deliverDueDigests` (claims the emails 10 at a time, loads each digest, renders its HTML and its text
 *   as src/digest/deliver.ts does, and hands the message to a Mailer that only counts bytes instead of
 *   speaking SMTP; records each as sent). Memory is sampled every 20 ms (RSS and V8 heap), plus the
 *   process's RSS high-water mark and, with --expose-gc, the heap left after a full GC before and after.
 *
 * Usage: node --expose-gc --import tsx bench/digest-run.ts seed|measure CONFIG_JSON, where CONFIG_JSON is
 * {"databaseUrl", "accounts", "items"}. Prints progress, then one line "RESULT {json}".
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { buildDueDigests } from '../src/digest/build.js';
import { deliverDueDigests } from '../src/digest/deliver.js';
import { type DigestDeps, digestDeps } from '../src/digest/deps.js';
import type { MailMessage, Mailer, SentMail } from '../src/digest/mail.js';
import { createLogger } from '../src/logger.js';
import { normaliseUrl, urlKey } from '../src/queue/url.js';
import { type Store, openStore } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { startProfiler } from './report.js';

export interface RunConfig {
  databaseUrl: string;
  accounts: number;
  items: number;
}

export interface SeedResult {
  accounts: number;
  items: number;
  seconds: number;
}

export interface MemorySample {
  /** Milliseconds since the pass began. */
  at: number;
  rss: number;
  heapUsed: number;
}

export interface MeasureResult {
  built: number;
  itemsBuilt: number;
  sent: number;
  /** Bytes of HTML and of text handed to the mailer. */
  htmlBytes: number;
  textBytes: number;
  buildSeconds: number;
  deliverSeconds: number;
  seconds: number;
  accountsPerSec: number;
  /** Highest sampled process.memoryUsage() during the pass, bytes. */
  peakRss: number;
  peakHeapUsed: number;
  /** process.resourceUsage().maxRSS at the end (the process's high-water mark, start-up included), bytes. */
  maxRss: number;
  rssBefore: number;
  /** Heap used after a full GC just before and just after the pass (null without --expose-gc). */
  heapAfterGcBefore: number | null;
  heapAfterGcAfter: number | null;
  /** Heap used sampled at each tenth of the pass (by time): flat when nothing piles up per account. */
  heapByTenth: number[];
  cpuSeconds: number;
}

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'Australia/Lord_Howe'];
const FEEDS = 200;
const CHUNK = 400;
const WORDS =
  'digest reader morning coffee feed article release notes weather garden city river history science ' +
  'music review interview update preview season market travel recipe story letter column essay report';

const log = (line: string): void => void process.stdout.write(`${line}\n`);

function openBenchStore(config: RunConfig): { store: Store; deps: DigestDeps; mailer: CountingMailer } {
  const c = loadConfig({
    DATABASE_URL: config.databaseUrl,
    LOG_LEVEL: 'silent',
    TIDINGS_BASE_URL: 'https://tidings.example',
    TIDINGS_MAIL_FROM: 'Tidings <digest@tidings.example>',
  });
  // As `serve` and `worker` open it (openServerStore): on SQLite, the WAL checkpointed by a thread of its own.
  const store = openStore(c.databaseUrl, {
    checkpointer: { onError: (message) => log(`  WAL checkpoint failed: ${message}`) },
  });
  const mailer = new CountingMailer();
  // The configuration of an instance with SMTP, except that the mailer counts instead of sending.
  const deps: DigestDeps = { ...digestDeps(c, store, createLogger(c.logLevel)), mailer };
  return { store, deps, mailer };
}

/** A Mailer that takes every message and keeps only its size. */
class CountingMailer implements Mailer {
  sent = 0;
  htmlBytes = 0;
  textBytes = 0;
  send(message: MailMessage): Promise<SentMail> {
    this.sent++;
    this.htmlBytes += Buffer.byteLength(message.html);
    this.textBytes += Buffer.byteLength(message.text);
    return Promise.resolve({ messageId: message.messageId, response: '250 counted' });
  }
  close(): void {
    // nothing to close
  }
}

/** Deterministic words for titles and summaries. */
function words(seed: number, count: number): string {
  const list = WORDS.split(' ');
  const out: string[] = [];
  let x = seed * 2654435761;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push(list[x % list.length] ?? 'word');
  }
  return out.join(' ');
}

async function seed(config: RunConfig): Promise<SeedResult> {
  const { store } = openBenchStore(config);
  const t0 = performance.now();
  try {
    await migrateToLatest(store);
    const now = Date.now();
    const iso = (ms: number): string => new Date(ms).toISOString();
    const feeds = Array.from({ length: FEEDS }, (_, f) => ({
      url: `https://feed${f}.example/rss`,
      title: `Feed ${f}: ${words(f, 3)}`,
      site_url: `https://feed${f}.example/`,
      next_fetch_at: iso(now + 3_600_000),
      created_at: iso(now),
    }));
    const feedIds: number[] = [];
    for (let i = 0; i < feeds.length; i += CHUNK) {
      const rows = await store.db
        .insertInto('feeds')
        .values(feeds.slice(i, i + CHUNK))
        .returning('id')
        .execute();
      feedIds.push(...rows.map((r) => r.id));
    }
    let items = 0;
    for (let first = 0; first < config.accounts; first += CHUNK) {
      const count = Math.min(CHUNK, config.accounts - first);
      const accounts = Array.from({ length: count }, (_, k) => {
        const a = first + k;
        return {
          name: `bench ${a}`,
          email: `reader${a}@example.org`,
          timezone: ZONES[a % ZONES.length] ?? 'UTC',
          created_at: iso(now - 86_400_000),
          digest_due_at: iso(now - 60_000),
        };
      });
      const ids = (await store.db.insertInto('accounts').values(accounts).returning('id').execute()).map(
        (r) => r.id,
      );
      const queue = ids.flatMap((accountId, k) =>
        Array.from({ length: config.items }, (_, n) => {
          const a = first + k;
          const saved = n % 5 === 0;
          const url = saved
            ? `https://www.site${(a + n) % 997}.example/saved/${a}/${n}?ref=bench`
            : `https://feed${(a + n) % FEEDS}.example/posts/${a}-${n}`;
          const at = iso(now - (config.items - n) * 600_000);
          return {
            account_id: accountId,
            url,
            url_key: urlKey(normaliseUrl(url)),
            title: `${saved ? 'Saved' : 'Post'} ${n}: ${words(a * 100 + n, 7)}`,
            source: saved ? ('api' as const) : ('feed' as const),
            created_at: at,
            updated_at: at,
            feed_id: saved ? null : (feedIds[(a + (n % 4)) % FEEDS] ?? null),
            summary: saved ? null : `${words(a * 131 + n, 36)}.`,
            published_at: saved ? null : iso(now - (config.items - n) * 900_000),
          };
        }),
      );
      for (let i = 0; i < queue.length; i += CHUNK) {
        await store.db
          .insertInto('queue_items')
          .values(queue.slice(i, i + CHUNK))
          .execute();
      }
      items += queue.length;
    }
    const seconds = (performance.now() - t0) / 1000;
    log(`  seeded ${config.accounts} accounts, ${items} queued items in ${seconds.toFixed(1)} s`);
    return { accounts: config.accounts, items, seconds };
  } finally {
    await store.close();
  }
}

const gc = (globalThis as { gc?: () => void }).gc;

function heapAfterGc(): number | null {
  if (gc === undefined) return null;
  gc();
  return process.memoryUsage().heapUsed;
}

async function measure(config: RunConfig): Promise<MeasureResult> {
  const { store, deps, mailer } = openBenchStore(config);
  try {
    await migrateToLatest(store); // nothing to do: makes sure the schema is there before the clock starts
    const heapAfterGcBefore = heapAfterGc();
    const rssBefore = process.memoryUsage().rss;
    const samples: MemorySample[] = [];
    const t0 = performance.now();
    let last = -Infinity;
    const sample = (force = false): void => {
      const at = performance.now() - t0;
      if (!force && at - last < 20) return;
      last = at;
      const m = process.memoryUsage();
      samples.push({ at, rss: m.rss, heapUsed: m.heapUsed });
    };
    // On SQLite the pass never yields to timers (better-sqlite3 is synchronous, so every await resolves
    // at once): the clock the digest code reads, which it does for every account and every email, also
    // samples, at most every 20 ms. The timer covers PostgreSQL's waits.
    const clock = deps.now;
    deps.now = () => {
      sample();
      return clock();
    };
    const timer = setInterval(sample, 20);
    const cpu0 = process.cpuUsage();
    const stopProfiler = await startProfiler('digest');

    const builds = await buildDueDigests(deps);
    const t1 = performance.now();
    sample(true);
    const deliveries = await deliverDueDigests(deps);
    const t2 = performance.now();
    sample(true);

    await stopProfiler?.();
    clearInterval(timer);
    const cpu = process.cpuUsage(cpu0);
    const heapAfterGcAfter = heapAfterGc();

    let built = 0;
    let itemsBuilt = 0;
    for (const b of builds) {
      if (b.status === 'built') {
        built++;
        itemsBuilt += b.items;
      } else {
        throw new Error(`account ${b.accountId}: ${b.status}, not built`);
      }
    }
    const sent = deliveries.filter((d) => d.status === 'sent').length;
    const seconds = (t2 - t0) / 1000;
    const tenths = Array.from({ length: 10 }, (_, i) => {
      const end = ((i + 1) / 10) * (t2 - t0);
      const within = samples.filter((s) => s.at <= end && s.at > (i / 10) * (t2 - t0));
      return Math.max(0, ...within.map((s) => s.heapUsed));
    });
    return {
      built,
      itemsBuilt,
      sent,
      htmlBytes: mailer.htmlBytes,
      textBytes: mailer.textBytes,
      buildSeconds: (t1 - t0) / 1000,
      deliverSeconds: (t2 - t1) / 1000,
      seconds,
      accountsPerSec: built / seconds,
      peakRss: Math.max(...samples.map((s) => s.rss)),
      peakHeapUsed: Math.max(...samples.map((s) => s.heapUsed)),
      maxRss: process.resourceUsage().maxRSS * 1024,
      rssBefore,
      heapAfterGcBefore,
      heapAfterGcAfter,
      heapByTenth: tenths,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    };
  } finally {
    await store.close();
  }
}

const [mode, json] = process.argv.slice(2);
if ((mode !== 'seed' && mode !== 'measure') || json === undefined) {
  process.stderr.write('usage: digest-run.ts seed|measure CONFIG_JSON\n');
  process.exit(2);
}
const config = JSON.parse(json) as RunConfig;
const result = mode === 'seed' ? await seed(config) : await measure(config);
log(`RESULT ${JSON.stringify(result)}`);
