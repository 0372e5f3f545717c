import type { Kysely } from 'kysely';
import { TidingsError } from '../errors.js';
import type { Store } from '../store/db.js';
import { bumpQueueVersion } from '../store/accounts.js';
import { transaction } from '../store/precompiled.js';
import {
  createQueueItemIfAbsent,
  queueItemByKey,
  queueLength,
  queueLengthBound,
  updateQueueItemTitle,
} from '../store/queueItems.js';
import type { Database, QueueSource } from '../store/schema.js';
import { checkTitle, checkUrl } from './url.js';

export interface AddInput {
  url: string | undefined;
  title: string | undefined;
  source: QueueSource;
  /** The feed an item comes from (source 'feed'). */
  feedId?: number | null;
  /** A feed item's plain-text summary and publication time, kept for its digest (source 'feed'). */
  summary?: string | null;
  publishedAt?: string | null;
}

export type AddOutcome = 'added' | 'title_updated' | 'already_queued';

/** A validated save, waiting for its transaction. */
interface Save {
  accountId: number;
  url: string;
  urlKey: string;
  title: string;
  titleGiven: boolean;
  source: QueueSource;
  feedId: number | null;
  summary: string | null;
  publishedAt: string | null;
  limit: number;
}

/**
 * The one business path into the queue (API, web app and feeds all come here): validate, normalise,
 * dedupe against what is waiting, respect the queue limit. The caller has already authorised accountId.
 *
 * Saves that arrive together are written together (see QueueWriter); each gets the answer it would
 * get alone, in arrival order.
 */
export async function addSavedUrl(
  store: Store,
  accountId: number,
  input: AddInput,
  options: { limit: number },
): Promise<AddOutcome> {
  return writerOf(store).add(checkSave(accountId, input, options));
}

/**
 * The same path for a caller that already holds a transaction (feed ingest, which commits its items
 * and their queueing together). Throws the TidingsError a refused save fails with.
 */
export async function addToQueue(
  trx: Kysely<Database>,
  accountId: number,
  input: AddInput,
  options: { limit: number },
): Promise<AddOutcome> {
  const save = checkSave(accountId, input, options);
  const result = await apply(trx, save, {
    version: await bumpQueueVersion(trx, accountId),
    bound: undefined,
  });
  if ('error' in result) throw result.error;
  return result.outcome;
}

function checkSave(accountId: number, input: AddInput, options: { limit: number }): Save {
  const checked = checkUrl(input.url);
  return {
    accountId,
    url: checked.url,
    urlKey: checked.key,
    title: checkTitle(input.title, checked.url),
    // A feed never renames what is already queued (a title the reader saved, or another feed's).
    titleGiven: input.source !== 'feed' && input.title !== undefined && input.title.trim() !== '',
    source: input.source,
    feedId: input.feedId ?? null,
    summary: input.summary ?? null,
    publishedAt: input.publishedAt ?? null,
    limit: options.limit,
  };
}

/** What one transaction knows of an account's queue once it has bumped (and so locked) it. */
interface QueueState {
  /** The version this transaction bumped the queue to; null when the account does not exist. */
  version: number | null;
  /** An upper bound of the queue's length, read on first use. */
  bound: number | undefined;
}

const MAX_BATCH = 200;
/** How many more turns of the event loop a batch may wait while saves keep arriving. */
const SETTLE_TURNS = 3;

/** A save's answer: its outcome, or the error it fails with (a TidingsError for a refusal). */
type Result = { outcome: AddOutcome } | { error: unknown };

/**
 * Group commit, per store. Saves that arrive in the same turn of the event loop (or while the previous
 * transaction runs) share one transaction: each account in it is bumped once, in id order (on
 * PostgreSQL that locks its row, serialising writers to a queue across instances, and the order rules
 * out deadlocks), then every save is applied in arrival order: insert unless the URL is waiting, else
 * dedupe. A new URL costs one statement instead of a transaction of its own. A save refused for a
 * client error (queue full) writes nothing and does not disturb the others. If the transaction fails,
 * each save of the batch is retried in a transaction of its own, so one save's failure is only its own.
 */
class QueueWriter {
  private pending: { save: Save; resolve: (outcome: AddOutcome) => void; reject: (err: unknown) => void }[] =
    [];
  private scheduled = false;
  private running = false;
  private readonly bounds = new LengthBounds();

  constructor(private readonly store: Store) {}

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
    try {
      const results = await this.writeOrRetry(batch.map((p) => p.save));
      batch.forEach((p, i) => {
        const r = results[i] ?? { error: new Error('no result for a save') };
        if ('outcome' in r) p.resolve(r.outcome);
        else p.reject(r.error);
      });
    } finally {
      this.running = false;
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
            ([one]) => one ?? { error: new Error('no result for a save') },
            (error: unknown) => ({ error }),
          ),
        );
      }
      return results;
    }
  }

  /** One transaction for the saves. */
  private async write(saves: Save[]): Promise<Result[]> {
    const ids = [...new Set(saves.map((s) => s.accountId))].sort((a, b) => a - b);
    const { results, states } = await transaction(this.store.db, async (trx) => {
      const states = new Map<number, QueueState>();
      for (const id of ids) {
        const version = await bumpQueueVersion(trx, id);
        states.set(id, { version, bound: version === null ? undefined : this.bounds.get(id, version - 1) });
      }
      const results: Result[] = [];
      for (const save of saves) {
        const state = states.get(save.accountId);
        if (state === undefined) throw new Error('account not bumped');
        results.push(await apply(trx, save, state));
      }
      return { results, states };
    });
    // Only what was committed is remembered.
    for (const [id, s] of states)
      if (s.version !== null && s.bound !== undefined) this.bounds.set(id, s.version, s.bound);
    return results;
  }
}

/** One save, inside a transaction that has bumped its account. */
async function apply(trx: Kysely<Database>, save: Save, state: QueueState): Promise<Result> {
  const { accountId } = save;
  if (state.version === null) {
    return { error: new TidingsError('account_gone', 'the account for this key no longer exists') };
  }

  const dedupe = async (): Promise<AddOutcome | null> => {
    const existing = await queueItemByKey(trx, accountId, save.urlKey);
    if (existing === null) return null;
    if (!save.titleGiven || existing.title === save.title) return 'already_queued';
    await updateQueueItemTitle(trx, accountId, existing.id, save.title);
    return 'title_updated';
  };

  state.bound ??= await queueLengthBound(trx, accountId);
  if (state.bound >= save.limit) {
    // Possibly full: an URL already waiting is still deduplicated; a new one needs the exact length.
    const outcome = await dedupe();
    if (outcome !== null) return { outcome };
    const length = await queueLength(trx, accountId);
    if (length >= save.limit) {
      const message = `the queue already holds ${length} saved URLs (the limit is ${save.limit}); it empties with the next digest`;
      return { error: new TidingsError('queue_full', message) };
    }
    state.bound = length;
  }
  const item = {
    url: save.url,
    urlKey: save.urlKey,
    title: save.title,
    source: save.source,
    feedId: save.feedId,
    summary: save.summary,
    publishedAt: save.publishedAt,
  };
  if (await createQueueItemIfAbsent(trx, accountId, item)) {
    state.bound++;
    return { outcome: 'added' };
  }
  const outcome = await dedupe();
  if (outcome === null) throw new Error('queue item neither inserted nor found');
  return { outcome };
}

/**
 * An upper bound of each account's queue length, as of a queue version. Every change to a queue bumps
 * its version in the same transaction (on any instance), so a bound recorded at version v − 1 is still
 * a bound when this process's own transaction has just bumped the version to v; for any other version
 * it is ignored and the bound is read from the database again. Nothing is used without that check, so
 * several instances stay correct.
 */
class LengthBounds {
  private readonly entries = new Map<number, { version: number; bound: number }>();

  constructor(private readonly maxAccounts = 10_000) {}

  get(accountId: number, version: number): number | undefined {
    const e = this.entries.get(accountId);
    return e !== undefined && e.version === version ? e.bound : undefined;
  }

  set(accountId: number, version: number, bound: number): void {
    const e = this.entries.get(accountId);
    if (e !== undefined && e.version >= version) return; // a later transaction got there first
    this.entries.delete(accountId);
    if (this.entries.size >= this.maxAccounts) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(accountId, { version, bound });
  }
}

const writers = new WeakMap<Store, QueueWriter>();

function writerOf(store: Store): QueueWriter {
  let writer = writers.get(store);
  if (writer === undefined) {
    writer = new QueueWriter(store);
    writers.set(store, writer);
  }
  return writer;
}
