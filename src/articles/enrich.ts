import type { PageReadList } from '../lib/metrics.js';
import { KeyedSemaphore, Semaphore } from '../lib/semaphore.js';
import { hostOf } from '../lib/url.js';
import { workerId } from '../lib/workers.js';
import {
  type PageRow,
  claimDuePages,
  deleteUnusedPages,
  linkUnreadItems,
  releasePage,
} from '../store/pages.js';
import { type ReaderDeps, readerTime } from './deps.js';
import { ExtractPool } from './extractPool.js';
import { passThreads } from './keptPool.js';
import { type Extractor, type PageOutcome, readPage } from './reader.js';

export interface EnrichOptions {
  /** Pages fetched at once by this process. */
  concurrency: number;
  /** Pages of one host fetched at once: two, as for feeds. */
  perHost: number;
  /** How long a claimed page stays ours; longer than one whole fetch (30 s) and its extraction. */
  leaseMs: number;
  /** Queue items linked per transaction. */
  batchSize: number;
  /**
   * Pages looked at per pass for the ones nothing shows any more (store/pages.ts deleteUnusedPages): the
   * worker walks the table this many a pass, from where its last pass stopped.
   */
  forgetWindow: number;
}

export const DEFAULT_ENRICH_OPTIONS: EnrichOptions = {
  concurrency: 8,
  perHost: 2,
  leaseMs: 5 * 60_000,
  batchSize: 500,
  forgetWindow: 1000,
};

/** Where a worker's walk of the pages for forgetting stands: the last page id looked at (0: the start). */
export interface ForgetCursor {
  after: number;
}

/** A page is fetched only while its lease has this much left: a whole fetch (30 s) and its extraction. */
const LEASE_MARGIN_MS = 60_000;

export interface EnrichSummary {
  /** Queue items linked to a page in this pass. */
  linked: number;
  /** Pages fetched (each counted once, whatever came of it). */
  pages: number;
  read: number;
  /** Of those read, how many were larger than the limit and read up to it. */
  truncated: number;
  /** Temporary failures: tried again later. */
  retried: number;
  failed: number;
  /** Pages another worker took over mid-read: nothing of ours was written. */
  leaseLost: number;
  /** Pages no item shows any more, deleted. */
  forgotten: number;
}

/**
 * One pass of the page reader: link unread saved items to their pages, read every page that is due, and
 * forget pages nothing shows any more (a window of them: see `forget`). With `accountId`, only that
 * account's items are linked and only pages they show are read. Pages are claimed with leases, so several
 * processes can read at once. Once `signal` is aborted, nothing more is claimed and claimed pages not yet
 * started are given back.
 */
export async function enrichOnce(
  deps: ReaderDeps,
  opts: Partial<EnrichOptions> & {
    accountId?: number;
    owner?: string;
    signal?: AbortSignal;
    /** The worker's extraction threads (keptPool.ts); else the pass's own, ended with it. */
    extract?: Extractor;
    /**
     * The worker's walk for forgetting pages: this pass looks at one window from there, and moves it on.
     * Without one (a pass of its own: `tidings enrich`), the pass walks every window.
     */
    forget?: ForgetCursor;
  } = {},
): Promise<EnrichSummary> {
  const o = { ...DEFAULT_ENRICH_OPTIONS, ...opts };
  const owner = opts.owner ?? workerId();
  const account = opts.accountId === undefined ? {} : { accountId: opts.accountId };
  const summary: EnrichSummary = {
    linked: 0,
    pages: 0,
    read: 0,
    truncated: 0,
    retried: 0,
    failed: 0,
    leaseLost: 0,
    forgotten: 0,
  };
  const stopped = (): boolean => opts.signal?.aborted === true;
  for (let n = o.batchSize; n === o.batchSize && !stopped();) {
    n = await linkUnreadItems(deps.store.db, {
      now: readerTime(deps).toISOString(),
      limit: o.batchSize,
      ...account,
    });
    summary.linked += n;
  }
  const global = new Semaphore(o.concurrency);
  const perHost = new KeyedSemaphore(o.perHost);
  const margin = Math.min(LEASE_MARGIN_MS, o.leaseMs / 2);
  let givenBack = 0;
  // Extraction never runs in this thread (it serves requests too): at least one thread, started with the
  // first page fetched.
  const threads = passThreads(opts.extract, () => extractThreads(deps));
  const extract = threads.extract;
  const read = async (page: PageRow): Promise<void> => {
    // A page that waited for its host until its lease nearly ran out is given back unfetched: another
    // worker may take it over, and fetching it then would ask its server twice.
    const late = readerTime(deps).getTime() > Date.parse(page.lease_until ?? '') - margin;
    if (stopped() || late) {
      givenBack++;
      await releasePage(deps.store.db, page.id, owner);
    } else tally(summary, await readOne(deps, page, owner, extract));
  };
  try {
    while (!stopped()) {
      const t = readerTime(deps);
      const batch = await claimDuePages(deps.store.db, deps.store.engine, {
        owner,
        now: t.toISOString(),
        leaseUntil: new Date(t.getTime() + o.leaseMs).toISOString(),
        limit: o.concurrency * 4,
        ...account,
      });
      if (batch.length === 0) break;
      givenBack = 0;
      await Promise.all(
        batch.map((page) => global.run(() => perHost.run(hostOf(page.url), () => read(page)))),
      );
      // Nothing read, all given back (the clock or the lease is off): the next pass tries again.
      if (givenBack === batch.length) break;
    }
  } finally {
    await threads.close();
  }
  if (!stopped()) summary.forgotten = await forgetUnused(deps, o.forgetWindow, opts.forget);
  return summary;
}

/** One window of the worker's walk (moving its cursor on), or the whole walk for a pass of its own. */
async function forgetUnused(
  deps: ReaderDeps,
  scan: number,
  cursor: ForgetCursor | undefined,
): Promise<number> {
  const walk = cursor ?? { after: 0 };
  let forgotten = 0;
  do {
    const done = await deleteUnusedPages(deps.store.db, { after: walk.after, scan });
    forgotten += done.deleted;
    walk.after = done.next;
  } while (cursor === undefined && walk.after !== 0);
  return forgotten;
}

/** The page reader's extraction threads: `extractThreads` of them (at least one), started with pages. */
export const extractThreads = (deps: ReaderDeps): ExtractPool =>
  new ExtractPool(Math.max(1, deps.extractThreads ?? 1), (err) => {
    deps.log.warn({ err }, 'a page extraction thread ended');
  });

/**
 * Reads one page (the queue's, or a paced one: `list`); an unexpected failure (a bug, the database) is
 * logged and counted, never thrown.
 */
export async function readOne(
  deps: ReaderDeps,
  page: PageRow,
  owner: string,
  extract: Extractor,
  list: PageReadList = 'queue',
): Promise<PageOutcome> {
  try {
    const outcome = await readPage(deps, page, owner, extract, list);
    deps.log.debug({ pageId: page.id, url: page.url, ...outcome }, 'page read');
    return outcome;
  } catch (err) {
    // The lease runs out and the page is claimed again: a bug does not fail a page for good.
    deps.log.error({ err, pageId: page.id, url: page.url }, 'reading a page failed');
    return { status: 'retry', message: err instanceof Error ? err.message : String(err) };
  }
}

/** What a pass counts of the pages it read, by outcome. */
export type ReadTally = Pick<
  EnrichSummary,
  'pages' | 'read' | 'truncated' | 'retried' | 'failed' | 'leaseLost'
>;

export function tally(s: ReadTally, r: PageOutcome): void {
  s.pages++;
  if (r.status === 'read') {
    s.read++;
    if (r.truncated) s.truncated++;
  } else if (r.status === 'retry') s.retried++;
  else if (r.status === 'failed') s.failed++;
  else s.leaseLost++;
}
