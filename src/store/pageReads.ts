import type { Kysely, Selectable } from 'kysely';
import type { Database, PagesTable } from './schema.js';

/**
 * Reading `pages` for display (digests, the queue page, the reading view). The reader's pipeline writes
 * them (store/pages.ts); nothing here changes a row.
 */

/** What a list (a digest, the queue page) shows of a page that was read. */
export interface PageCard {
  id: number;
  title: string | null;
  description: string | null;
  site_name: string | null;
  reading_minutes: number;
  image_url: string | null;
  image_width: number | null;
  image_height: number | null;
  image_alt: string | null;
  /** The page has reader text: the reading view has something to show. */
  has_text: boolean;
}

/** A page as the reading view shows it. */
export type PageReading = Pick<
  Selectable<PagesTable>,
  | 'id'
  | 'url'
  | 'final_url'
  | 'title'
  | 'description'
  | 'site_name'
  | 'author'
  | 'published_at'
  | 'language'
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
    for (const row of rows) cards.set(row.id, { ...row, has_text: Number(row.has_text) === 1 });
  }
  return cards;
}

/**
 * The page, read, when the account has it in its queue or in one of its digests; null otherwise (no such
 * page, not read yet, or only other accounts saved it).
 */
export async function pageReadableBy(
  db: Kysely<Database>,
  accountId: number,
  pageId: number,
): Promise<PageReading | null> {
  const row = await db
    .selectFrom('pages as p')
    .select([
      'p.id',
      'p.url',
      'p.final_url',
      'p.title',
      'p.description',
      'p.site_name',
      'p.author',
      'p.published_at',
      'p.language',
      'p.image_url',
      'p.image_width',
      'p.image_height',
      'p.image_alt',
      'p.html',
      'p.word_count',
      'p.reading_minutes',
    ])
    .where('p.id', '=', pageId)
    .where('p.state', '=', 'read')
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('queue_items as q')
            .select('q.id')
            .where('q.account_id', '=', accountId)
            .whereRef('q.page_id', '=', 'p.id'),
        ),
        eb.exists(
          eb
            .selectFrom('digest_items as di')
            .innerJoin('digests as d', 'd.id', 'di.digest_id')
            .select('di.id')
            .where('d.account_id', '=', accountId)
            .whereRef('di.page_id', '=', 'p.id'),
        ),
      ]),
    )
    .executeTakeFirst();
  return row ?? null;
}
