import { setTimeout as sleep } from 'node:timers/promises';
import { hostOf } from '../lib/url.js';
import { type Worker, startLoop, workerId } from '../lib/workers.js';
import {
  claimPacedPage,
  forgetHostLeases,
  linkReadingItems,
  nextPacedPageDueAt,
  queueReaderBusy,
  restHost,
} from '../store/readingListPages.js';
import { onToRead } from '../store/toRead.js';
import { type ReaderDeps, readerTime } from './deps.js';
import { type ReadTally, readOne, tally } from './enrich.js';
import { ExtractPool } from './extractPool.js';
import { KeptPool, passThreads } from './keptPool.js';
import type { Extractor } from './reader.js';

/**
 * The paced reader: the pages of reading-list links, read in the background at a gentle pace and only
 * while the queue's reader has nothing to do (docs/reading-list.md, "Reading the pages"). Each page is
 * read exactly as a saved link's (articles/reader.ts: the same fetch rules, limits, extraction in a thread,
 * retries and attempts); what differs is when, and how many.
 */

export interface PacedOptions {
  /**
   * Pages this process starts reading a minute, at most: one after another, never two at once, at least
   * 60 s / perMinute apart. TIDINGS_READING_LIST_PACE (20 by default).
   */
  perMinute: number;
  /**
   * How long a host rests after a paced read of it ended before any worker reads it again: one host is
   * never asked twice at once, nor twice in a row, by the reading list.
   */
  hostRestMs: number;
  /** How long a claimed page (and its host) stays ours; longer than one whole fetch and its extraction. */
  leaseMs: number;
  /** Reading-list items linked to their page per transaction. */
  batchSize: number;
  /** Pages read in one pass at most; the pass then ends (its extraction thread with it). */
  passPages: number;
}

export const DEFAULT_PACED_OPTIONS: PacedOptions = {
  perMinute: 20,
  hostRestMs: 10_000,
  leaseMs: 5 * 60_000,
  batchSize: 500,
  passPages: 20,
};

export interface PacedSummary extends ReadTally {
  /** Reading-list items linked to their page in this pass. */
  linked: number;
  /** The pass stopped because the queue's reader had pages due: they come first. */
  yielded: boolean;
}

/**
 * One pass of the paced reader: link the reading-list items that have no text of their own to their
 * page, then read due paced pages one at a time, each on a host nobody reads or rested from, at most
 * `perMinute` a minute and `passPages` in all, stopping as soon as the queue's reader has work. Once
 * `signal` is aborted nothing more is started. `pace` carries the start of the last read from pass to
 * pass (the worker's), so that a pass that starts early (woken by an import) still keeps the pace.
 */
export async function readReadingListOnce(
  deps: ReaderDeps,
  opts: Partial<PacedOptions> & {
    owner?: string;
    signal?: AbortSignal;
    extract?: Extractor;
    pace?: { lastStart: number | null };
  } = {},
): Promise<PacedSummary> {
  const o = { ...DEFAULT_PACED_OPTIONS, ...opts };
  const owner = opts.owner ?? workerId();
  const db = deps.store.db;
  const summary: PacedSummary = {
    linked: 0,
    pages: 0,
    read: 0,
    truncated: 0,
    retried: 0,
    failed: 0,
    leaseLost: 0,
    yielded: false,
  };
  const stopped = (): boolean => opts.signal?.aborted === true;
  const now = (): Date => readerTime(deps);
  for (let n = o.batchSize; n === o.batchSize && !stopped();) {
    n = await linkReadingItems(db, { now: now().toISOString(), limit: o.batchSize });
    summary.linked += n;
  }
  const interval = paceMs(o.perMinute);
  // The worker's thread (startPacedReader), else one of the pass's own, started with its first page.
  const thread = passThreads(opts.extract, () => extractThread(deps));
  const pace = opts.pace ?? { lastStart: null };
  try {
    while (!stopped() && summary.pages < o.passPages) {
      if (pace.lastStart !== null) {
        const wait = pace.lastStart + interval - performance.now();
        // Rejects at once when `signal` is aborted: the loop then ends.
        if (wait > 0) await sleep(wait, undefined, { signal: opts.signal }).catch(() => undefined);
        if (stopped()) break;
      }
      const t = now();
      if (await queueReaderBusy(db, t.toISOString())) {
        summary.yielded = true;
        break;
      }
      const page = await claimPacedPage(db, {
        owner,
        now: t.toISOString(),
        leaseUntil: new Date(t.getTime() + o.leaseMs).toISOString(),
      });
      if (page === null) break;
      pace.lastStart = performance.now();
      try {
        tally(summary, await readOne(deps, page, owner, thread.extract, 'reading_list'));
      } finally {
        const restUntil = new Date(now().getTime() + o.hostRestMs).toISOString();
        await restHost(db, page.host ?? hostOf(page.url), owner, restUntil);
      }
    }
  } finally {
    await thread.close();
  }
  await forgetHostLeases(db, now().toISOString());
  return summary;
}

/** One thread: paced pages are read one at a time. */
const extractThread = (deps: ReaderDeps): ExtractPool =>
  new ExtractPool(1, (err) => deps.log.warn({ err }, 'a page extraction thread ended'));

/** The least time between the starts of two paced reads of one process. */
export const paceMs = (perMinute: number): number => 60_000 / Math.max(1, perMinute);

/**
 * Reads the reading list's pages in the background until stopped: a pass, then a sleep of at least the
 * pace, until the next paced page is due when none is now (at most `maxSleepMs`, so that imports made
 * through other processes are noticed where nothing tells of them). Links imported meanwhile end the
 * sleep at once (by this process, or on PostgreSQL by any: store/toRead.ts); the pace is kept across
 * passes all the same.
 */
export function startPacedReader(
  deps: ReaderDeps,
  opts: Partial<PacedOptions> & { maxSleepMs?: number } = {},
): Worker {
  const owner = workerId();
  const maxSleepMs = opts.maxSleepMs ?? 30_000;
  const interval = paceMs(opts.perMinute ?? DEFAULT_PACED_OPTIONS.perMinute);
  // One thread, kept from pass to pass (keptPool.ts).
  const thread = new KeptPool(() => extractThread(deps));
  const pace: { lastStart: number | null } = { lastStart: null };
  const loop = startLoop({
    name: 'reading list reader',
    pass: async (signal) => {
      const s = await readReadingListOnce(deps, {
        ...opts,
        owner,
        signal,
        extract: thread.extractor(),
        pace,
      });
      if (s.pages > 0 || s.linked > 0) deps.log.info({ ...s }, 'reading list reader pass');
      await thread.passed(s.pages);
    },
    sleepMs: async () => {
      try {
        const next = await nextPacedPageDueAt(deps.store.db);
        const until = next === null ? maxSleepMs : Date.parse(next) - readerTime(deps).getTime();
        // Never less than the pace: the next pass may start a read at once.
        return Math.max(interval, Math.min(maxSleepMs, until));
      } catch {
        return Math.max(interval, maxSleepMs);
      }
    },
    log: deps.log,
    failed: 'reading list reader pass failed; retrying shortly',
    wakeOn: (wake) => onToRead(deps.store, 'imported', wake),
  });
  return {
    name: loop.name,
    stop: async () => {
      await loop.stop();
      await thread.close();
    },
  };
}
