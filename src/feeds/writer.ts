import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { createFeedsItemsIfNew } from '../store/feedItems.js';
import {
  type FeedFetchUpdate,
  type FeedOutcomeRow,
  type FeedRow,
  lockFeeds,
  updateFeedsAfterFetch,
} from '../store/feeds.js';
import { transaction } from '../store/precompiled.js';
import type { Database } from '../store/schema.js';
import { subscriptionsByFeeds } from '../store/subscriptions.js';
import type { RefreshDeps } from './deps.js';
import type { FeedItem } from './parse/parse.js';
import { type Offered, type Offers, enqueueOffers, offerNewItems } from './queueing.js';
import { afterSettling } from '../lib/settle.js';

/** What storing a fetch came to: its counts, or nothing written because the lease was lost. */
export type Stored =
  { status: 'updated'; newItems: number; queued: number; offered: Offered } | { status: 'lease_lost' };

/** A feed that answered with a document, parsed: what its fetch stores (see storeFetch). */
export interface FetchToStore {
  feed: FeedRow;
  owner: string;
  now: Date;
  items: readonly FeedItem[];
  update: FeedFetchUpdate;
}

/**
 * Records a fetch outcome that stores no items (304, error, gone) and releases the lease, only if `owner`
 * still holds it; false otherwise. Written with the other fetches' outcomes that are ready (see FeedWriter).
 */
export function recordOutcome(deps: RefreshDeps, row: FeedOutcomeRow): Promise<boolean> {
  return writerOf(deps).record(row);
}

/**
 * Stores a fetch in one transaction under the lease: remembers its items, queues the new ones for every
 * subscriber whose filters they pass (queueing.ts), records the outcome and releases the lease. Written
 * with the other fetches that are ready (see FeedWriter); throws only this fetch's failure.
 */
export function storeFetch(deps: RefreshDeps, fetch: FetchToStore): Promise<Stored> {
  return writerOf(deps).store(fetch);
}

const MAX_BATCH = 256;

const MAX_ITEM_KEY_LENGTH = 500;

/** Item keys are indexed: a guid longer than an index entry may hold is stored as its hash. */
const boundedKey = (id: string): string =>
  id.length <= MAX_ITEM_KEY_LENGTH ? id : `hash:${createHash('sha256').update(id).digest('hex')}`;

type Job =
  | { kind: 'record'; row: FeedOutcomeRow; resolve: (written: boolean) => void; reject: (e: unknown) => void }
  | { kind: 'store'; fetch: FetchToStore; resolve: (s: Stored) => void; reject: (e: unknown) => void };

const feedIdOf = (job: Job): number => (job.kind === 'record' ? job.row.feedId : job.fetch.feed.id);

/**
 * Group commit of fetch outcomes, per RefreshDeps. The outcomes that are ready in the same turn of the
 * event loop (or while the previous batch is written) are written together, one transaction at a time:
 * on PostgreSQL the feeds locked in one statement, all their items remembered in one, their subscriptions
 * read in one, the queues written by one `enqueueMany`, and every outcome (304s and errors included)
 * recorded by one UPDATE … FROM unnest. Every write keeps its guard: an outcome is recorded, and items
 * stored, only for a feed whose lease its owner still holds (the others answer lease_lost or false), and
 * nothing of a fetch is committed before its items are. If a batch fails, each of its outcomes is
 * written again on its own, so that one fetch's failure is only its own (the caller records it).
 * A crash loses at most the batch under way, whose feeds stay leased and are fetched again later.
 */
class FeedWriter {
  private pending: Job[] = [];
  private scheduled = false;
  private writing = false;

  constructor(private readonly deps: RefreshDeps) {}

  record(row: FeedOutcomeRow): Promise<boolean> {
    return new Promise((resolve, reject) => this.add({ kind: 'record', row, resolve, reject }));
  }

  store(fetch: FetchToStore): Promise<Stored> {
    return new Promise((resolve, reject) => this.add({ kind: 'store', fetch, resolve, reject }));
  }

  private add(job: Job): void {
    this.pending.push(job);
    this.schedule();
  }

  /** Writes what is pending at the end of this turn, or a few turns later while more keeps arriving. */
  private schedule(): void {
    if (this.scheduled || this.writing || this.pending.length === 0) return;
    this.scheduled = true;
    afterSettling(
      () => this.pending.length,
      MAX_BATCH,
      () => {
        this.scheduled = false;
        void this.flush();
      },
    );
  }

  private async flush(): Promise<void> {
    // One outcome per feed in a batch (a feed's outcomes are written in the order they came).
    const taken: Job[] = [];
    const rest: Job[] = [];
    const feeds = new Set<number>();
    for (const job of this.pending) {
      if (taken.length < MAX_BATCH && !feeds.has(feedIdOf(job))) {
        taken.push(job);
        feeds.add(feedIdOf(job));
      } else rest.push(job);
    }
    this.pending = rest;
    this.writing = true;
    try {
      await this.writeOrRetry(taken);
    } finally {
      this.writing = false;
      this.schedule();
    }
  }

  /** The batch at once; if that fails, each job again on its own, which settles it either way. */
  private async writeOrRetry(jobs: Job[]): Promise<void> {
    try {
      await this.write(jobs);
    } catch (batchError) {
      if (jobs.length === 1) {
        jobs[0]?.reject(batchError);
        return;
      }
      for (const job of jobs) {
        try {
          await this.write([job]);
        } catch (err) {
          job.reject(err);
        }
      }
    }
  }

  /** Writes the jobs (one statement, or one transaction when items are stored) and settles each of them. */
  private async write(jobs: Job[]): Promise<void> {
    const records = jobs.flatMap((j) => (j.kind === 'record' ? [j] : []));
    const stores = jobs.flatMap((j) => (j.kind === 'store' ? [j] : []));
    const { db, engine } = this.deps.store;
    if (stores.length === 0 && engine === 'postgres') {
      const written = await updateFeedsAfterFetch(
        db,
        engine,
        records.map((j) => j.row),
      );
      for (const j of records) j.resolve(written.has(j.row.feedId));
      return;
    }
    const { written, stored } = await transaction(db, async (trx) => {
      const stored = await this.storeAll(
        trx,
        stores.map((j) => j.fetch),
      );
      const rows = [
        ...records.map((j) => j.row),
        ...stores.flatMap((j, i) => {
          const { feed, owner, update } = j.fetch;
          return stored[i]?.status === 'updated' ? [{ feedId: feed.id, owner, update }] : [];
        }),
      ];
      const written = await updateFeedsAfterFetch(trx, engine, rows);
      // Under the feed's lock the lease cannot have moved: if it did, nothing of the batch is kept.
      stores.forEach((j, i) => {
        if (stored[i]?.status === 'updated' && !written.has(j.fetch.feed.id))
          throw new Error(`the lease on feed ${j.fetch.feed.id} moved while it was locked`);
      });
      return { written, stored };
    });
    for (const j of records) j.resolve(written.has(j.row.feedId));
    stores.forEach((j, i) => j.resolve(stored[i] ?? { status: 'lease_lost' }));
  }

  /**
   * Stores the fetches' items and queues them, inside the transaction: each feed locked first (so that a
   * subscription's first fill never runs beside this; see queueing.ts), only while its owner holds the
   * lease; what came of each fetch, in order. The outcomes themselves are recorded by the caller.
   */
  private async storeAll(trx: Kysely<Database>, fetches: readonly FetchToStore[]): Promise<Stored[]> {
    if (fetches.length === 0) return [];
    const { engine } = this.deps.store;
    const locked = new Set<number>();
    for (const owner of new Set(fetches.map((f) => f.owner))) {
      const ids = fetches.filter((f) => f.owner === owner).map((f) => f.feed.id);
      for (const id of (await lockFeeds(trx, engine, ids, owner)).keys()) locked.add(id);
    }
    const live = fetches.filter((f) => locked.has(f.feed.id));
    const keyed = live.map((f) => ({ fetch: f, byKey: byKey(f.items) }));
    const created = await createFeedsItemsIfNew(
      trx,
      keyed.map(({ fetch, byKey }) => {
        const firstSeenAt = fetch.now.toISOString();
        return {
          feedId: fetch.feed.id,
          items: [...byKey].map(([itemKey, item]) => ({
            itemKey,
            url: item.url,
            title: item.title,
            summary: item.summary,
            publishedAt: item.published?.toISOString() ?? null,
            firstSeenAt,
            imageUrl: item.image,
          })),
        };
      }),
    );
    const subscriptions = await subscriptionsByFeeds(
      trx,
      live.map((f) => f.feed.id),
    );
    const offers: Offers[] = [];
    const fresh = new Map<number, number>();
    for (const { fetch, byKey } of keyed) {
      const isNew = created.get(fetch.feed.id) ?? new Set<string>();
      // Oldest first, so that queues list a feed's items in the order they were published.
      const items = [...byKey].filter(([key]) => isNew.has(key)).map(([, item]) => item);
      fresh.set(fetch.feed.id, items.length);
      const rows = subscriptions.filter((s) => s.feed_id === fetch.feed.id);
      offers.push(await offerNewItems(this.deps, trx, fetch.feed, items, fetch.now, rows));
    }
    const offered = await enqueueOffers(this.deps, trx, offers);
    const results = new Map<number, Stored>();
    live.forEach((f, i) => {
      const o = offered[i] ?? {};
      results.set(f.feed.id, {
        status: 'updated',
        newItems: fresh.get(f.feed.id) ?? 0,
        queued: o.added ?? 0,
        offered: o,
      });
    });
    return fetches.map((f) => results.get(f.feed.id) ?? { status: 'lease_lost' });
  }
}

/** Every item the feed shows by its stored key, oldest first; of items sharing a key, the oldest counts. */
function byKey(items: readonly FeedItem[]): Map<string, FeedItem> {
  const keyed = new Map<string, FeedItem>();
  for (const item of [...items].reverse()) {
    const key = boundedKey(item.id);
    if (!keyed.has(key)) keyed.set(key, item);
  }
  return keyed;
}

const writers = new WeakMap<RefreshDeps, FeedWriter>();

function writerOf(deps: RefreshDeps): FeedWriter {
  let writer = writers.get(deps);
  if (writer === undefined) {
    writer = new FeedWriter(deps);
    writers.set(deps, writer);
  }
  return writer;
}
