import { type Kysely, sql } from 'kysely';
import { tagPattern } from './readingList.js';
import type { Database, Timestamp } from './schema.js';
import type { ReadingState } from './schemaReadingList.js';

/*
 * The reading list as wallabag's clients read it (issue 35): pages of entries by their filters and
 * sorts, one entry with its read page, and the changes a client makes (title, tags, star, delete). The
 * archive state changes through store/readingList.ts setReadingState, the one rule for every path.
 */

/** What GET /api/entries.json filters by; each unset: any. */
export interface EntryFilter {
  state?: ReadingState;
  starred?: boolean;
  /** Lower-cased labels; an entry has every one. */
  tags?: readonly string[];
  /** Changed at or after. */
  since?: Timestamp;
  /** The host of its URL (lower-case). */
  domain?: string;
}

export type EntrySort = 'created' | 'updated' | 'archived';

/** One entry: the item and what its read page says (null until read, or for an item with its own text). */
export interface EntryRow {
  id: number;
  url: string;
  title: string;
  state: ReadingState;
  tags: string;
  saved_at: Timestamp;
  updated_at: Timestamp;
  archived_at: Timestamp | null;
  starred_at: Timestamp | null;
  author: string | null;
  published_at: Timestamp | null;
  page_title: string | null;
  page_author: string | null;
  page_published_at: Timestamp | null;
  language: string | null;
  image_url: string | null;
  media_type: string | null;
  reading_minutes: number | null;
  /** The readable HTML (the item's own, else its page's): only when asked for. */
  content: string | null;
  /** Its plain text, likewise. */
  text: string | null;
}

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function filtered(db: Kysely<Database>, accountId: number, f: EntryFilter) {
  let q = db.selectFrom('reading_list as r').where('r.account_id', '=', accountId);
  if (f.state !== undefined) q = q.where('r.state', '=', f.state);
  if (f.starred !== undefined) q = q.where('r.starred_at', f.starred ? 'is not' : 'is', null);
  for (const tag of f.tags ?? []) q = q.where(sql<boolean>`r.tags like ${tagPattern(tag)} escape '\\'`);
  if (f.since !== undefined) q = q.where('r.updated_at', '>=', f.since);
  if (f.domain !== undefined) {
    const host = escapeLike(f.domain);
    q = q.where((eb) =>
      eb.or([
        eb(sql`r.url_key`, 'like', sql`${`http://${host}/%`} escape '\\'`),
        eb(sql`r.url_key`, 'like', sql`${`https://${host}/%`} escape '\\'`),
      ]),
    );
  }
  return q;
}

type Filtered = ReturnType<typeof filtered>;

function withColumns(filteredRows: Filtered, content: 'none' | 'html' | 'html and text') {
  return filteredRows
    .leftJoin('pages as p', (j) => j.onRef('p.id', '=', 'r.page_id').on('p.state', '=', 'read'))
    .select(['r.id', 'r.url', 'r.title', 'r.state', 'r.tags', 'r.saved_at', 'r.updated_at'])
    .select(['r.archived_at', 'r.starred_at', 'r.author', 'r.published_at'])
    .select(['p.title as page_title', 'p.author as page_author', 'p.published_at as page_published_at'])
    .select(['p.language', 'p.image_url', 'p.media_type', 'p.reading_minutes'])
    .select(
      content === 'none'
        ? sql<null>`null`.as('content')
        : sql<string | null>`coalesce(r.html, p.html)`.as('content'),
    )
    .select(
      content === 'html and text'
        ? sql<string | null>`coalesce(r.text, p.text)`.as('text')
        : sql<null>`null`.as('text'),
    );
}

export interface EntryView {
  sort: EntrySort;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
  /** Whether the page's entries carry their readable HTML (their plain text never: a list has no use for it). */
  content: boolean;
  /**
   * PostgreSQL: the numbers of the page's tags read in the same statement (each entry's labels split by
   * string_to_array, looked up in reading_tags' (account_id, label) index). SQLite, whose statements are
   * no round trip, has no such split: there the numbers are a statement of their own (readingTags.ts).
   */
  tagNumbers: boolean;
}

/**
 * The account's entries in the view's order, the id last so that a page never changes between two
 * requests. `created` and `updated` have their indexes, the id at their end (migrations 0051 and 0075; 0075's
 * for `created` under a state filter): a page reads its ids in index order, sorting nothing. `archived`
 * (entries never archived last) sorts the matching ids, a top-N sort.
 */
function inOrder(q: Filtered, view: EntryView): Filtered {
  const sorted =
    view.sort === 'archived'
      ? q.orderBy(sql`case when r.archived_at is null then 1 else 0 end`).orderBy('r.archived_at', view.order)
      : q.orderBy(view.sort === 'updated' ? 'r.updated_at' : 'r.saved_at', view.order);
  return sorted.orderBy('r.id', view.order);
}

/**
 * A page of the account's entries and how many match, in one statement (issue 35, point 6: a client
 * walking 10,000 entries pays one round trip a page for them; bench:clients counts them): the page's ids
 * in order (narrow rows, an index walk), their columns and read page for those ids only (the text of no
 * other entry is read), the count of every match as a subquery run once, and with `tagNumbers` the
 * numbers its tags have (`tagNumbers`: label to number; null when not asked). A page past the end has no
 * row to carry the count: then, and only then, a second statement counts.
 */
export async function entryPage(
  db: Kysely<Database>,
  accountId: number,
  filter: EntryFilter,
  view: EntryView,
): Promise<{ rows: EntryRow[]; total: number; tagNumbers: Map<string, number> | null }> {
  const count = () =>
    filtered(db, accountId, filter).select((eb) => eb.fn.countAll<number | string>().as('n'));
  const ids = inOrder(filtered(db, accountId, filter), view)
    .select('r.id')
    .limit(view.limit)
    .offset(view.offset);
  const found = await withColumns(inOrder(filtered(db, accountId, {}), view), view.content ? 'html' : 'none')
    .where('r.id', 'in', ids)
    .select(count().as('total'))
    .select(
      view.tagNumbers
        ? sql<[number, string][] | null>`(select json_agg(json_build_array(t.id, t.label))
            from reading_tags t
            where t.account_id = r.account_id and t.label = any(string_to_array(r.tags, ${'\n'})))`.as(
            'tag_numbers',
          )
        : sql<null>`null`.as('tag_numbers'),
    )
    .execute();
  const tagNumbers = view.tagNumbers
    ? new Map(found.flatMap((r) => (r.tag_numbers ?? []).map(([id, label]) => [label, id] as const)))
    : null;
  const rows: EntryRow[] = found;
  const first = found[0];
  if (first !== undefined) return { rows, total: Number(first.total), tagNumbers };
  if (view.offset === 0) return { rows: [], total: 0, tagNumbers };
  return { rows: [], total: Number((await count().executeTakeFirst())?.n ?? 0), tagNumbers };
}

/** One entry of the account, its readable text included; null when it has none of that id. */
export async function entryById(
  db: Kysely<Database>,
  accountId: number,
  id: number,
): Promise<EntryRow | null> {
  const row = await withColumns(filtered(db, accountId, {}), 'html and text')
    .where('r.id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

/** The account's entry of this URL key; null when none. */
export async function entryIdByKey(
  db: Kysely<Database>,
  accountId: number,
  urlKey: string,
): Promise<number | null> {
  const row = await db
    .selectFrom('reading_list')
    .select('id')
    .where('account_id', '=', accountId)
    .where('url_key', '=', urlKey)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** The account's entry whose URL has this SHA-1 (hex, wallabag's hashed_url); null when none. */
export async function entryIdByHash(
  db: Kysely<Database>,
  accountId: number,
  sha1: string,
): Promise<number | null> {
  const row = await db
    .selectFrom('reading_list')
    .select('id')
    .where('account_id', '=', accountId)
    .where('url_hash', '=', sha1.toLowerCase())
    .orderBy('id')
    .executeTakeFirst();
  return row?.id ?? null;
}

/** What a client may change of an entry beside its state: each unset stays. */
export interface EntryChange {
  title?: string;
  /** As stored (lib/readingTags.ts). */
  tags?: string;
  starred?: boolean;
}

/** Changes an entry; false when the account has none of that id. */
export async function changeEntry(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  change: EntryChange,
  at: Timestamp,
): Promise<boolean> {
  const starredAt =
    change.starred === undefined
      ? undefined
      : change.starred
        ? sql<string>`coalesce(starred_at, ${at})`
        : null;
  const result = await db
    .updateTable('reading_list')
    .set({
      updated_at: at,
      ...(change.title === undefined ? {} : { title: change.title }),
      ...(change.tags === undefined ? {} : { tags: change.tags }),
      ...(starredAt === undefined ? {} : { starred_at: starredAt }),
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes an entry (a digest's offer of it goes with it); false when the account has none of that id. */
export async function deleteEntry(db: Kysely<Database>, accountId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('reading_list')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
