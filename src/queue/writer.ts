import type { Store } from '../store/db.js';
import { transaction } from '../store/precompiled.js';
import { LengthBounds } from './bounds.js';
import { type AddOutcome, type QueueItem, enqueue } from './enqueue.js';

/** A validated save, waiting for its transaction. */
export interface Save {
  accountId: number;
  limit: number;
  item: QueueItem;
}

const MAX_BATCH = 200;
/** How many more turns of the event loop a batch may wait while saves keep arriving. */
const SETTLE_TURNS = 3;

/** A save's answer: its outcome, or the error it fails with (a TidingsError for a refusal). */
type Result = { outcome: AddOutcome } | { error: unknown };

const NO_RESULT = (): Result => ({ error: new Error('no result for a save') });

/**
 * Group commit, per store. Saves that arrive in the same turn of the event loop (or while the previous
 * transaction runs) share one transaction: each account's saves go through `enqueue` together, the
 * accounts in id order (its lock serialises writers to a queue across instances, and the order rules out
 * deadlocks), each account's saves in arrival order. A new URL costs one statement instead of a
 * transaction of its own. A save refused for a client error (queue full) writes nothing and does not
 * disturb the others. If the transaction fails, each save of the batch is retried in a transaction of its
 * own, so one save's failure is only its own.
 */
class QueueWriter {
  private pending: { save: Save; resolve: (outcome: AddOutcome) => void; reject: (err: unknown) => void }[] =
    [];
  private scheduled = false;
  private running = false;
  /** Saves in the transaction under way. */
  private writing = 0;
  private readonly bounds = new LengthBounds();

  constructor(private readonly store: Store) {}

  /** Saves accepted and not yet answered: waiting for a transaction, or in the one under way. */
  get unanswered(): number {
    return this.pending.length + this.writing;
  }

  add(save: Save): Promise<AddOutcome> {
    return new Promise((resolve, reject) => {
      this.pending.push({ save, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Writes what is pending at the end of this turn of the event loop; while more saves keep arriving
   * turn after turn (a busy server), waits up to SETTLE_TURNS more turns so that they share the commit.
   * A lone save waits one turn, as it always did.
   */
  private schedule(): void {
    if (this.scheduled || this.running || this.pending.length === 0) return;
    this.scheduled = true;
    let seen = this.pending.length;
    let turns = 0;
    const check = (): void => {
      if (this.pending.length > seen && this.pending.length < MAX_BATCH && turns++ < SETTLE_TURNS) {
        seen = this.pending.length;
        setImmediate(check);
        return;
      }
      this.scheduled = false;
      void this.flush();
    };
    setImmediate(check);
  }

  private async flush(): Promise<void> {
    const batch = this.pending.splice(0, MAX_BATCH);
    this.running = true;
    this.writing = batch.length;
    try {
      const results = await this.writeOrRetry(batch.map((p) => p.save));
      batch.forEach((p, i) => {
        const r = results[i] ?? NO_RESULT();
        if ('outcome' in r) p.resolve(r.outcome);
        else p.reject(r.error);
      });
    } finally {
      this.running = false;
      this.writing = 0;
      this.schedule();
    }
  }

  /**
   * The batch in one transaction; if that fails, each save again in a transaction of its own, so that a
   * failure is only the failing save's (as when every save had its own transaction).
   */
  private async writeOrRetry(saves: Save[]): Promise<Result[]> {
    try {
      return await this.write(saves);
    } catch (batchError) {
      if (saves.length === 1) return [{ error: batchError }];
      const results: Result[] = [];
      for (const save of saves) {
        results.push(
          await this.write([save]).then(
            ([one]) => one ?? NO_RESULT(),
            (error: unknown) => ({ error }),
          ),
        );
      }
      return results;
    }
  }

  /** One transaction for the saves; their answers in the order given. */
  private async write(saves: Save[]): Promise<Result[]> {
    const groups = groupByQueue(saves);
    const { results, committed } = await transaction(this.store.db, async (trx) => {
      const results: Result[] = new Array<Result>(saves.length);
      const committed: { accountId: number; version: number; bound: number }[] = [];
      for (const { accountId, limit, indexes, items } of groups) {
        const done = await enqueue(trx, accountId, items, { limit, bounds: this.bounds });
        indexes.forEach((at, n) => (results[at] = done.results[n] ?? NO_RESULT()));
        if (done.version !== null && done.bound !== undefined)
          committed.push({ accountId, version: done.version, bound: done.bound });
      }
      return { results, committed };
    });
    // Only what was committed is remembered.
    for (const c of committed) this.bounds.set(c.accountId, c.version, c.bound);
    return results;
  }
}

interface QueueGroup {
  accountId: number;
  limit: number;
  /** The positions of the group's saves in the batch, and their items, in arrival order. */
  indexes: number[];
  items: QueueItem[];
}

/**
 * The saves of each account (and queue limit: one per process in practice), accounts in id order.
 */
function groupByQueue(saves: readonly Save[]): QueueGroup[] {
  const groups = new Map<string, QueueGroup>();
  saves.forEach((save, i) => {
    const key = `${save.accountId}:${save.limit}`;
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, { accountId: save.accountId, limit: save.limit, indexes: [i], items: [save.item] });
    } else {
      group.indexes.push(i);
      group.items.push(save.item);
    }
  });
  return [...groups.values()].sort((a, b) => a.accountId - b.accountId || a.limit - b.limit);
}

const writers = new WeakMap<Store, QueueWriter>();

/** The store's group-commit writer (one per store, made on first use). */
export function writerOf(store: Store): QueueWriter {
  let writer = writers.get(store);
  if (writer === undefined) {
    writer = new QueueWriter(store);
    writers.set(store, writer);
  }
  return writer;
}

/** The saves the store's writer has accepted and not yet answered (0 before its first save). */
export function pendingSaves(store: Store): number {
  return writers.get(store)?.unanswered ?? 0;
}
