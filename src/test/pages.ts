import type { Insertable } from 'kysely';
import type { Store } from '../store/db.js';
import type { PagesTable } from '../store/schema.js';

/**
 * Pages as the reader pipeline leaves them (it is not needed to test what is shown): a row inserted
 * directly, and items linked to it.
 */

/** A page that was read, with the fields a test does not care about filled in; returns its id. */
export async function insertPage(
  store: Store,
  over: Partial<Insertable<PagesTable>> & { url: string },
): Promise<number> {
  const row = await store.db
    .insertInto('pages')
    .values({
      url_key: over.url,
      state: 'read',
      kind: 'html',
      fetched_at: '2026-11-21T09:00:00.000Z',
      http_status: 200,
      created_at: '2026-11-21T08:59:00.000Z',
      ...over,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Points the account's queued item with this URL at the page. */
export async function linkQueuedPage(
  store: Store,
  accountId: number,
  url: string,
  pageId: number,
): Promise<void> {
  const result = await store.db
    .updateTable('queue_items')
    .set({ page_id: pageId })
    .where('account_id', '=', accountId)
    .where('url', '=', url)
    .executeTakeFirst();
  if (result.numUpdatedRows !== 1n) throw new Error(`no queued item ${url} for account ${accountId}`);
}

/** A page the way the reader writes one of an article: title, site, author, time, image, text. */
export const ARTICLE = {
  title: 'How tides are made',
  description: 'The moon pulls the sea, the sea pulls back: a slow dance twice a day.',
  site_name: 'Sea Notes',
  author: 'Marina Flores',
  published_at: '2026-11-20T07:00:00.000Z',
  language: 'en',
  image_url: 'https://img.sea.example/tides.jpg',
  image_width: 1200,
  image_height: 800,
  image_alt: 'Low tide at dawn',
  html: '<p>The tide comes in <em>twice</em> a day.</p>',
  word_count: 1300,
  reading_minutes: 6,
} as const;
