import { AppError } from '../errors.js';
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
import type { QueueSource } from '../store/schema.js';
import { checkTitle, checkUrl } from './url.js';

export interface AddInput {
  url: string | undefined;
  title: string | undefined;
  source: QueueSource;
}

export type AddOutcome = 'added' | 'title_updated' | 'already_queued';

interface Committed {
  version: number;
  bound: number;
  outcome: AddOutcome;
}

/**
 * The one business path into the queue (API, web app and feeds all come here): validate, normalise,
 * dedupe against what is waiting, respect the queue limit. The caller has already authorised accountId.
 *
 * One transaction: bump the queue version (on PostgreSQL this locks the account row, which serialises
 * writers to one queue across instances), then insert unless the URL is already waiting. The limit is
 * checked against an upper bound of the queue's length (see LengthBounds); only a bound at the limit
 * costs an exact count. A new URL takes four statements: begin, bump, insert, commit.
 */
export async function addSavedUrl(
  store: Store,
  accountId: number,
  input: AddInput,
  options: { limit: number },
): Promise<AddOutcome> {
  const checked = checkUrl(input.url);
  const title = checkTitle(input.title, checked.url);
  const titleGiven = input.title !== undefined && input.title.trim() !== '';
  const bounds = lengthBoundsOf(store);

  const result = await transaction(store.db, async (trx): Promise<Committed> => {
    const version = await bumpQueueVersion(trx, accountId);
    if (version === null) throw new AppError('key_invalid', 'the account for this key no longer exists');

    const dedupe = async (): Promise<AddOutcome | null> => {
      const existing = await queueItemByKey(trx, accountId, checked.key);
      if (existing === null) return null;
      if (!titleGiven || existing.title === title) return 'already_queued';
      await updateQueueItemTitle(trx, accountId, existing.id, title);
      return 'title_updated';
    };

    let bound = bounds.get(accountId, version - 1) ?? (await queueLengthBound(trx, accountId));
    if (bound >= options.limit) {
      // Possibly full: an URL already waiting is still deduplicated; a new one needs the exact length.
      const outcome = await dedupe();
      if (outcome !== null) return { version, bound, outcome };
      const length = await queueLength(trx, accountId);
      if (length >= options.limit) {
        throw new AppError(
          'queue_full',
          `the queue already holds ${length} saved URLs (the limit is ${options.limit}); it empties with the next digest`,
        );
      }
      bound = length;
    }
    const added = await createQueueItemIfAbsent(trx, accountId, {
      url: checked.url,
      urlKey: checked.key,
      title,
      source: input.source,
    });
    if (added) return { version, bound: bound + 1, outcome: 'added' };
    const outcome = await dedupe();
    if (outcome === null) throw new Error('queue item neither inserted nor found');
    return { version, bound, outcome };
  });
  // Only what was committed is remembered.
  bounds.set(accountId, result.version, result.bound);
  return result.outcome;
}

/**
 * Per store, an upper bound of each account's queue length, as of a queue version. Every change to a
 * queue bumps its version in the same transaction (on any instance), so a bound remembered for
 * version v − 1 is still a bound when this process's own transaction has just bumped it to v; for any
 * other version it is ignored and the bound is read again from the database. Nothing here is served
 * without that check, so several instances stay correct.
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

const boundsByStore = new WeakMap<Store, LengthBounds>();

function lengthBoundsOf(store: Store): LengthBounds {
  let bounds = boundsByStore.get(store);
  if (bounds === undefined) {
    bounds = new LengthBounds();
    boundsByStore.set(store, bounds);
  }
  return bounds;
}
