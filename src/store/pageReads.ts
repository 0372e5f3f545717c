import type { Kysely, Selectable } from 'kysely';
import type { PageFacts } from '../lib/display.js';
import type { Database, PagesTable } from './schema.js';

/**
 * Reading `pages` for display (digests, the queue page, the reading view). The reader's pipeline writes
 * them (store/pages.ts); nothing here changes a row.
 */

/** What a list (a digest, the queue page) shows of a page that was read (the fields lib/display.ts reads). */
export type PageCard = PageFacts & { id: number };

/** A page as the reading view shows it. */
export type PageReading = Pick<
  Selectable<PagesTable>,
  | 'id'
  | 'url'
  | 'final_url'
  | 'kind'
  | 'title'
  | 'description'
  | 'site_name'
  | 'author'
  | 'published_at'
  | 'language'
  | 'direction'
  | 'image_url'
  | 'image_width'
  | 'image_height'
  | 'image_alt'
  | 'html'
  | 'word_count'
  | 'reading_minutes'
>;

/** Ids per query: each is a parameter. */
const CHUNK = 500;

/** The cards of the given pages that were read, by id; pages pending, failed or gone are absent. */
export async function pageCardsByIds(
  db: Kysely<Database>,
  ids: readonly (number | null)[],
): Promise<Map<number, PageCard>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  const cards = new Map<number, PageCard>();
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const rows = await db
      .selectFrom('pages')
      .select((eb) => [
        'id',
        'title',
        'description',
        'site_name',
        'reading_minutes',
        'image_url',
        'image_width',
        'image_height',
        'image_alt',
        eb.case().when('html', 'is not', null).then(1).else(0).end().as('has_text'),
      ])
      .where('id', 'in', wanted.slice(i, i + CHUNK))
      .where('state', '=', 'read')
      .execute();
    for (const row of rows) cards.set(row.id, { ...row, has_text: row.has_text === 1 });
  }
  return cards;
}

/** Why a page is not read, as a list shows it beside its item: the last attempt's error, in plain words. */
export interface PageReadFailure {
  /** Given up (`failed`): no more attempts. Otherwise it is tried again later. */
  gaveUp: boolean;
  error: string;
}

/** The failures of the given pages whose last attempt failed (pending again, or failed), by id. */
export async function pageFailuresByIds(
  db: Kysely<Database>,
  ids: readonly (number | null)[],
): Promise<Map<number, PageReadFailure>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  const failures = new Map<number, PageReadFailure>();
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const rows = await db
      .selectFrom('pages')
      .select(['id', 'state', 'error'])
      .where('id', 'in', wanted.slice(i, i + CHUNK))
      .where('state', '<>', 'read')
      .where('error', 'is not', null)
      .execute();
    for (const row of rows) {
      failures.set(row.id, { gaveUp: row.state === 'failed', error: row.error ?? '' });
    }
  }
  return failures;
}

/** The account's own item that shows a page: its link and title as saved. */
export interface ItemOfPage {
  url: string;
  title: string;
}

/**
 * The account's item that points at the page: the one waiting in its queue, else the latest in one of its
 * digests, else one of its reading list; null when the account has none (only other accounts saved the
 * page, or none did).
 */
export async function accountItemOfPage(
  db: Kysely<Database>,
  accountId: number,
  pageId: number,
): Promise<ItemOfPage | null> {
  const queued = await db
    .selectFrom('queue_items')
    .select(['url', 'title'])
    .where('account_id', '=', accountId)
    .where('page_id', '=', pageId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (queued !== undefined) return queued;
  const digested = await db
    .selectFrom('digest_items as di')
    .innerJoin('digests as d', 'd.id', 'di.digest_id')
    .select(['di.url', 'di.title'])
    .where('d.account_id', '=', accountId)
    .where('di.page_id', '=', pageId)
    .orderBy('di.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (digested !== undefined) return digested;
  // A link of its reading list (a digest's "From your reading list" links to its reading view).
  const listed = await db
    .selectFrom('reading_list')
    .select(['url', 'title'])
    .where('account_id', '=', accountId)
    .where('page_id', '=', pageId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return listed ?? null;
}

/** A page that was read, by id; null when there is none or it was not read (pending, failed). */
export async function readPageById(db: Kysely<Database>, pageId: number): Promise<PageReading | null> {
  const row = await db
    .selectFrom('pages')
    .select([
      'id',
      'url',
      'final_url',
      'kind',
      'title',
      'description',
      'site_name',
      'author',
      'published_at',
      'language',
      'direction',
      'image_url',
      'image_width',
      'image_height',
      'image_alt',
      'html',
      'word_count',
      'reading_minutes',
    ])
    .where('id', '=', pageId)
    .where('state', '=', 'read')
    .executeTakeFirst();
  return row ?? null;
}

/** A read page's text and byline, as an e-book's chapter shows it. */
export type PageBody = Pick<
  Selectable<PagesTable>,
  'id' | 'html' | 'author' | 'site_name' | 'language' | 'direction'
>;

/**
 * The bodies of the given pages that were read with text, by id, a few at a time: each may be up to
 * MAX_HTML_CHARS (articles/html.ts), so the caller bounds how many it asks for.
 */
export async function pageBodiesByIds(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<Map<number, PageBody & { html: string }>> {
  const wanted = [...new Set(ids)];
  const bodies = new Map<number, PageBody & { html: string }>();
  for (let i = 0; i < wanted.length; i += BODY_CHUNK) {
    const rows = await db
      .selectFrom('pages')
      .select(['id', 'html', 'author', 'site_name', 'language', 'direction'])
      .where('id', 'in', wanted.slice(i, i + BODY_CHUNK))
      .where('state', '=', 'read')
      .where('html', 'is not', null)
      .execute();
    for (const row of rows) if (row.html !== null) bodies.set(row.id, { ...row, html: row.html });
  }
  return bodies;
}

/** Bodies per query: at most a few megabytes of text in memory at once. */
const BODY_CHUNK = 20;
