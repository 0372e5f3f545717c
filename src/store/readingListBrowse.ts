import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { ReadingState } from './schemaReadingList.js';

/* What the web app's reading-list page asks beyond store/readingList.ts (its list, counts and state). */

/** A tag and how many of the account's items carry it. */
export interface TagCount {
  tag: string;
  count: number;
}

/**
 * The tags of the account's items (of one state, or all), most used first, then by name. Counted per
 * distinct tag set in SQL (an import's items share a few sets: a folder, a label), each set split here: the
 * two engines have no common way to split a string into rows.
 */
export async function readingTagCounts(
  db: Kysely<Database>,
  accountId: number,
  state: ReadingState | undefined,
): Promise<TagCount[]> {
  const sets = await db
    .selectFrom('reading_list')
    .select(['tags', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('account_id', '=', accountId)
    .where('tags', '<>', '')
    .$if(state !== undefined, (qb) => qb.where('state', '=', state ?? 'unread'))
    .groupBy('tags')
    .execute();
  const counts = new Map<string, number>();
  for (const set of sets) {
    for (const tag of set.tags.split('\n')) {
      if (tag !== '') counts.set(tag, (counts.get(tag) ?? 0) + Number(set.n));
    }
  }
  return [...counts]
    .map(([tag, count]) => ({ tag, count }))
    .sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
}
