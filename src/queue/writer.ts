import type { Store } from '../store/db.js';
import { transaction } from '../store/precompiled.js';
import { LengthBounds } from './bounds.js';
import {
  type AddOutcome,
  type QueueItem,
  type QueueOffers,
  enqueueMany,
  enqueueManyAtOnce,
} from './enqueue.js';
import type { Offer } from './plan.js';
import { afterSettling } from '../lib/settle.js';

/** A validated save, waiting for its transaction. */
export interface Save {
  accountId: number;
  limit: number;
  item: QueueItem;
}

const MAX_BATCH = 200;
/** PostgreSQL: how long saves may wait for the others expected to share their transaction (see schedule). */
const SETTLE_MS = 2;

/** A save's answer: its outcome, or the error it fails with (a TidingsError for a refusal). */
type Result = { outcome: AddOutcome } | { error: unknown };

const NO_RESULT = (): Result => ({ error: new Error('no result for a save') });

/** Transactions of saves a PostgreSQL store's writer runs at once (the pool has 10 connections by default). */
const POSTGRES_WRITERS = 4;

interface Pending {
  save: Save;
  resolve: (outcome: AddOutcome) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit, per store. Saves that arrive in the same turn of the event loop (or while earlier
 * transactions run) share a transaction: `enqueueMany` writes all their accounts' saves in a handful of
 * statements, the accounts locked once, in id order (a queue's lock serialises writers to it across
 * instances, and the order rules out deadlocks), each account's saves in arrival order. A save refused
 * for a client error (queue full) writes nothing and does not disturb the others. If a transaction fails,
 * each of its saves is retried in a transaction of its own, so one save's failure is only its own. On
 * PostgreSQL the usual transaction is one round trip (enqueueManyAtOnce); enqueueMany's takes several.
 *
 * SQLite has one writer: one transaction at a time, for every account pending. On PostgreSQL up to
 * POSTGRES_WRITERS transactions run at once, for different accounts: the saves pending for accounts
 * that have none under way are split among the free transactions by account, so a queue whose lock is
 * held elsewhere (a digest build, another instance) delays only its own saves. An account's saves wait
 * while one of its transactions is under way, so they are written in arrival order.
 */
class QueueWriter {
  private pending: Pending[] = [];
  private scheduled = false;
  /** PostgreSQL: the pending saves are written when it fires, if the senders expected have not all come. */
  private timer: NodeJS.Timeout | undefined;
  private readonly waitsForSenders: boolean;
  /** Saves answered within SETTLE_MS of answeredAt, less the saves that came since (see schedule). */
  private awaited = 0;
  private answeredAt = 0;
  /** Transactions under way, and the accounts they write to. */
  private inFlight = 0;
  private readonly busy = new Set<number>();
  /** Saves in the transactions under way. */
  private writing = 0;
  private readonly bounds = new LengthBounds();
  private readonly maxInFlight: number;

  constructor(private readonly store: Store) {
    this.maxInFlight = store.engine === 'postgres' ? POSTGRES_WRITERS : 1;
    this.waitsForSenders = store.engine === 'postgres';
  }

  /** Saves accepted and not yet answered: waiting for a transaction, or in one under way. */
  get unanswered(): number {
    return this.pending.length + this.writing;
  }

  add(save: Save): Promise<AddOutcome> {
    return new Promise((resolve, reject) => {
      this.pending.push({ save, resolve, reject });
      if (this.awaited > 0) this.awaited--;
      this.schedule();
    });
  }

  /** Whether a transaction could start now for some pending save. */
  private ready(): boolean {
    return this.inFlight < this.maxInFlight && this.pending.some((p) => !this.busy.has(p.save.accountId));
  }

  /**
   * Writes what is pending at the end of this turn of the event loop; while more saves keep arriving
   * turn after turn (a busy server), waits a few more turns (lib/settle.ts) so that they share the commit.
   * A lone save waits one turn, as it always did.
   *
   * On PostgreSQL it first waits, at most SETTLE_MS, while saves answered in the last SETTLE_MS have not
   * all been followed by a new one: their senders, answered together, tend to send their next saves
   * together but not in the same turn, and a transaction started with the first would make the others
   * wait for it (an account has one at a time), a round trip and a commit more. (On SQLite a transaction
   * costs less than waiting.)
   */
  private schedule(): void {
    if (this.scheduled || !this.ready()) return;
    if (this.waitsForSenders && this.sendersExpected()) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.awaited = 0;
        this.schedule();
      }, SETTLE_MS);
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.scheduled = true;
    afterSettling(
      () => this.pending.length,
      MAX_BATCH,
      () => {
        this.scheduled = false;
        this.flush();
      },
    );
  }

  /** Whether senders answered within the last SETTLE_MS are yet to send their next saves. */
  private sendersExpected(): boolean {
    if (this.awaited > 0 && performance.now() - this.answeredAt > SETTLE_MS) this.awaited = 0;
    return this.awaited > 0 && this.pending.length < MAX_BATCH;
  }

  /** Starts transactions for the pending saves of accounts with none under way, as many as are free. */
  private flush(): void {
    const taken: Pending[] = [];
    const rest: Pending[] = [];
    for (const p of this.pending) {
      if (taken.length < MAX_BATCH && !this.busy.has(p.save.accountId)) taken.push(p);
      else rest.push(p);
    }
    if (taken.length === 0 || this.inFlight >= this.maxInFlight) return;
    this.pending = rest;
    for (const chunk of splitByAccount(taken, this.maxInFlight - this.inFlight)) void this.run(chunk);
  }

  private async run(batch: Pending[]): Promise<void> {
    const accounts = new Set(batch.map((p) => p.save.accountId));
    for (const a of accounts) this.busy.add(a);
    this.inFlight++;
    this.writing += batch.length;
    try {
      const results = await this.writeOrRetry(batch.map((p) => p.save));
      batch.forEach((p, i) => {
        const r = results[i] ?? NO_RESULT();
        if ('outcome' in r) p.resolve(r.outcome);
        else p.reject(r.error);
      });
      this.awaited += batch.length;
      this.answeredAt = performance.now();
    } finally {
      for (const a of accounts) this.busy.delete(a);
      this.inFlight--;
      this.writing -= batch.length;
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
    const groups = groupByAccount(saves);
    const done =
      (await enqueueManyAtOnce(this.store, groups, this.bounds)) ??
      (await transaction(this.store.db, (trx) => enqueueMany(trx, this.store.engine, groups, this.bounds)));
    const results: Result[] = new Array<Result>(saves.length);
    groups.forEach((group, g) => {
      const one = done[g];
      group.indexes.forEach((at, n) => (results[at] = one?.results[n] ?? NO_RESULT()));
      // Only what was committed is remembered.
      if (one?.version != null && one.bound !== undefined)
        this.bounds.set(group.accountId, one.version, one.bound);
    });
    return results;
  }
}

interface AccountGroup extends QueueOffers {
  /** The positions of the group's saves in the batch, in arrival order. */
  indexes: number[];
  offers: Offer[];
}

/** The saves of each account, in arrival order, accounts in id order. */
function groupByAccount(saves: readonly Save[]): AccountGroup[] {
  const groups = new Map<number, AccountGroup>();
  saves.forEach((save, i) => {
    const offer = { item: save.item, limit: save.limit };
    const group = groups.get(save.accountId);
    if (group === undefined)
      groups.set(save.accountId, { accountId: save.accountId, indexes: [i], offers: [offer] });
    else {
      group.indexes.push(i);
      group.offers.push(offer);
    }
  });
  return [...groups.values()].sort((a, b) => a.accountId - b.accountId);
}

/** The saves split into at most `parts` batches, an account's saves all in one, in arrival order. */
function splitByAccount(saves: readonly Pending[], parts: number): Pending[][] {
  const accounts = [...new Set(saves.map((p) => p.save.accountId))];
  const n = Math.min(parts, accounts.length);
  const part = new Map(accounts.map((a, i) => [a, i % n]));
  const batches: Pending[][] = Array.from({ length: n }, () => []);
  for (const p of saves) batches[part.get(p.save.accountId) ?? 0]?.push(p);
  return batches;
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
