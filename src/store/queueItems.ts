import type { Kysely } from 'kysely';
import type { Database, QueueSource } from './schema.js';
import { now } from './db.js';

export interface SavedUrl {
  url: string;
  title: string;
}

/** The account's queue, oldest first, as the API shows it. */
export async function savedUrlsByAccount(db: Kysely<Database>, accountId: number): Promise<SavedUrl[]> {
  return db
    .selectFrom('queue_items')
    .select(['url', 'title'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

export async function queueItemByKey(
  db: Kysely<Database>,
  accountId: number,
  urlKey: string,
): Promise<{ id: number; title: string } | null> {
  const row = await db
    .selectFrom('queue_items')
    .select(['id', 'title'])
    .where('account_id', '=', accountId)
    .where('url_key', '=', urlKey)
    .executeTakeFirst();
  return row ?? null;
}

export async function queueLength(db: Kysely<Database>, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('queue_items')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.n;
}

export async function createQueueItem(
  db: Kysely<Database>,
  accountId: number,
  item: { url: string; urlKey: string; title: string; source: QueueSource },
): Promise<void> {
  const at = now();
  await db
    .insertInto('queue_items')
    .values({
      account_id: accountId,
      url: item.url,
      url_key: item.urlKey,
      title: item.title,
      source: item.source,
      created_at: at,
      updated_at: at,
    })
    .execute();
}

export async function updateQueueItemTitle(
  db: Kysely<Database>,
  accountId: number,
  itemId: number,
  title: string,
): Promise<void> {
  await db
    .updateTable('queue_items')
    .set({ title, updated_at: now() })
    .where('account_id', '=', accountId)
    .where('id', '=', itemId)
    .execute();
}
