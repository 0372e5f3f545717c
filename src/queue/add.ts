import { AppError } from '../errors.js';
import type { Store } from '../store/db.js';
import { bumpQueueVersion } from '../store/accounts.js';
import { createQueueItem, queueItemByKey, queueLength, updateQueueItemTitle } from '../store/queueItems.js';
import type { QueueSource } from '../store/schema.js';
import { checkTitle, checkUrl } from './url.js';

export interface AddInput {
  url: string | undefined;
  title: string | undefined;
  source: QueueSource;
}

export type AddOutcome = 'added' | 'title_updated' | 'already_queued';

/**
 * The one business path into the queue (API, web app and feeds all come here): validate, normalise,
 * dedupe against what is waiting, respect the queue limit. The caller has already authorised accountId.
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

  return store.db.transaction().execute(async (trx) => {
    // Taken first: on PostgreSQL the row lock serialises writers to one account's queue.
    const version = await bumpQueueVersion(trx, accountId);
    if (version === null) throw new AppError('key_invalid', 'the account for this key no longer exists');
    const existing = await queueItemByKey(trx, accountId, checked.key);
    if (existing !== null) {
      if (!titleGiven || existing.title === title) return 'already_queued';
      await updateQueueItemTitle(trx, accountId, existing.id, title);
      return 'title_updated';
    }
    const length = await queueLength(trx, accountId);
    if (length >= options.limit) {
      throw new AppError(
        'queue_full',
        `the queue already holds ${length} saved URLs (the limit is ${options.limit}); it empties with the next digest`,
      );
    }
    await createQueueItem(trx, accountId, {
      url: checked.url,
      urlKey: checked.key,
      title,
      source: input.source,
    });
    return 'added';
  });
}
