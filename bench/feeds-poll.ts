/**
 * The polling half of bench/feeds.ts, which runs it twice, each time in a fresh process:
 *
 * - `setup`: migrates the (fresh) database, creates the accounts, subscribes them to every fixture feed
 *   (subscribe with trusted: true, as an OPML import does: no discovery, no first fetch), then runs one
 *   warm-up pollOnce({ all: true }) pass, which stores every feed's ETag and items;
 * - `measure`: one timed pollOnce({ all: true }) pass and nothing else, so that the process's RSS
 *   high-water mark (process.resourceUsage().maxRSS) is the pass's own, plus the start-up before it.
 *
 * Both use the configuration a worker would get from TIDINGS_ALLOW_PRIVATE_NETWORKS=true,
 * TIDINGS_QUEUE_LIMIT=1000000 (so that no queue fills up) and LOG_LEVEL=silent, and the default poller
 * options (16 feeds at once, 2 per host). Feed i lives on origin i mod (number of origins); it is a static
 * feed (304 to a conditional request) when floor(i / origins) is even, a changing one otherwise.
 *
 * Usage: node --import tsx bench/feeds-poll.ts setup|measure CONFIG_JSON, where CONFIG_JSON is
 * {"databaseUrl", "origins", "feeds", "accounts"}. Prints progress, then one line "RESULT {json}".
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { feedDeps } from '../src/feeds/deps.js';
import { type PollSummary, pollOnce } from '../src/feeds/poller.js';
import type { RefreshDeps } from '../src/feeds/deps.js';
import { subscribe } from '../src/feeds/subscribe/subscribe.js';
import { createLogger } from '../src/logger.js';
import { createAccount } from '../src/store/accounts.js';
import { openStore } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { feedUrl } from './feeds-corpus.js';
import { startProfiler } from './report.js';

export interface PollConfig {
  databaseUrl: string;
  origins: string[];
  feeds: number;
  accounts: number;
}

export interface SetupResult {
  subscriptions: number;
  subscribeSeconds: number;
  warmup: PollSummary;
  warmupSeconds: number;
}

export interface MeasureResult {
  summary: PollSummary;
  seconds: number;
  feedsPerSec: number;
  /** process.resourceUsage().maxRSS at the end, in bytes: the process's high-water mark. */
  maxRss: number;
  /** The highest process.memoryUsage.rss() sampled every 20 ms during the pass, in bytes. */
  sampledPeakRss: number;
  /** RSS just before the pass began (modules loaded, database open), in bytes. */
  rssBefore: number;
  /** CPU seconds (user + system, all threads) this process spent in the pass. */
  cpuSeconds: number;
}

/** Feed i is followed by account i mod n, and every third feed also by the next account. */
export function followers(i: number, accounts: number): number[] {
  const first = i % accounts;
  return i % 3 === 0 && accounts > 1 ? [first, (first + 1) % accounts] : [first];
}

const log = (line: string): void => void process.stdout.write(`${line}\n`);

function openDeps(config: PollConfig): RefreshDeps {
  const c = loadConfig({
    DATABASE_URL: config.databaseUrl,
    LOG_LEVEL: 'silent',
    TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
    TIDINGS_QUEUE_LIMIT: '1000000',
    // Thousands of feeds per account (BENCH_FEEDS / BENCH_ACCOUNTS), more than the default allows.
    TIDINGS_MAX_SUBSCRIPTIONS: '1000000',
  });
  return feedDeps(c, openStore(c.databaseUrl), createLogger(c.logLevel));
}

/** Runs fn over 0..n-1, `width` at a time. */
async function forEachLimited(n: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: width }, lane));
}

async function setup(config: PollConfig): Promise<SetupResult> {
  const deps = openDeps(config);
  try {
    await migrateToLatest(deps.store);
    const accountIds: number[] = [];
    for (let a = 0; a < config.accounts; a++) {
      const account = await createAccount(deps.store.db, {
        name: `bench-${a}`,
        email: null,
        timezone: 'UTC',
      });
      accountIds.push(account.id);
    }
    let subscriptions = 0;
    const t0 = performance.now();
    await forEachLimited(config.feeds, deps.store.engine === 'postgres' ? 8 : 1, async (i) => {
      const { url } = feedUrl(config.origins, i);
      for (const a of followers(i, config.accounts)) {
        const accountId = accountIds[a];
        if (accountId === undefined) throw new Error(`no account ${a}`);
        const s = await subscribe(deps, accountId, { url, trusted: true });
        if (!s.created) throw new Error(`account ${accountId} already followed ${url}`);
        subscriptions++;
      }
    });
    const subscribeSeconds = (performance.now() - t0) / 1000;
    log(`  ${subscriptions} subscriptions to ${config.feeds} feeds in ${subscribeSeconds.toFixed(1)} s`);
    const t1 = performance.now();
    const warmup = await pollOnce(deps, { all: true });
    const warmupSeconds = (performance.now() - t1) / 1000;
    log(`  warm-up pass: ${JSON.stringify(warmup)} in ${warmupSeconds.toFixed(1)} s`);
    return { subscriptions, subscribeSeconds, warmup, warmupSeconds };
  } finally {
    await deps.store.close();
  }
}

async function measure(config: PollConfig): Promise<MeasureResult> {
  const deps = openDeps(config);
  try {
    await migrateToLatest(deps.store); // what a worker does at start; a no-op here
    // tsx turns source-mapped stack traces on; a worker runs without them, and undici makes an Error
    // (ClientDestroyedError) for every fetch's agent, whose mapped stack would be charged to the pass.
    process.setSourceMapsEnabled(false);
    const rssBefore = process.memoryUsage.rss();
    let sampledPeakRss = rssBefore;
    const sampler = setInterval(() => {
      sampledPeakRss = Math.max(sampledPeakRss, process.memoryUsage.rss());
    }, 20);
    const profiler = await startProfiler('poll');
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const summary = await pollOnce(deps, { all: true });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    const profile = await profiler?.();
    if (profile !== undefined) log(`  CPU profile of the pass: ${profile}`);
    sampledPeakRss = Math.max(sampledPeakRss, process.memoryUsage.rss());
    return {
      summary,
      seconds,
      feedsPerSec: summary.feeds / seconds,
      // maxRSS is in kilobytes.
      maxRss: process.resourceUsage().maxRSS * 1024,
      sampledPeakRss,
      rssBefore,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    };
  } finally {
    await deps.store.close();
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const [mode, json] = process.argv.slice(2);
  if ((mode !== 'setup' && mode !== 'measure') || json === undefined) {
    process.stderr.write('usage: feeds-poll.ts setup|measure CONFIG_JSON\n');
    process.exit(2);
  }
  const config = JSON.parse(json) as PollConfig;
  const result = mode === 'setup' ? await setup(config) : await measure(config);
  log(`RESULT ${JSON.stringify(result)}`);
}
