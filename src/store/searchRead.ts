import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type SearchClause, type SearchQuery, type SearchTerm, termText } from '../lib/searchQuery.js';
import { codePoints } from '../lib/text.js';
import type { Engine } from './db.js';
import type { Database, SearchKind, Timestamp } from './schema.js';

/**
 * The statements of a search (searchDocuments.ts searchItems says where they run). One query shape on
 * both engines: the documents of the account that match, ranked (SQLite FTS5 bm25, PostgreSQL ts_rank,
 * both weighting title over site and URL over excerpt over page text), then newer first. A term of a
 * script without spaces is a substring test over the indexed text instead, read from migration 0017's
 * trigram index.
 */

/** What a hit shows: the item as stored, its page's words, its digest. Highlighting is the caller's. */
export interface SearchRow {
  kind: SearchKind;
  item_id: number;
  digest_id: number | null;
  /** The digest's day (YYYY-MM-DD); null for a queued item. */
  digest_date: string | null;
  /** When it was queued or its digest built. */
  created_at: Timestamp;
  url: string;
  title: string;
  summary: string | null;
  feed_title: string | null;
  page_title: string | null;
  page_description: string | null;
  site_name: string | null;
  /** The page's text, as far as it is indexed; null when the page was not read. */
  page_text: string | null;
}

export interface SearchPage {
  /** Hits in all, counted up to RANKED_HITS + 1 (or `rankedHits` + 1, which tests lower). */
  total: number;
  /** More than RANKED_HITS matched: `total` is a lower bound and the hits come newest first, unranked. */
  capped: boolean;
  rows: SearchRow[];
}

/** Characters of a page's text that are indexed and that a hit carries (search_texts in migration 0015). */
export const INDEXED_TEXT_CHARS = 100_000;

/**
 * Most hits counted and ranked. Ranking reads every match; past this many (a word in one link of ten of a
 * large archive) the count stops and the hits come newest first, which both engines read in index order
 * and stop after one page.
 */
export const RANKED_HITS = 10_000;

/**
 * One page of the account's hits, run on the connection it is given: the caller's (PostgreSQL, an SQLite
 * database in memory) or the reader thread's (searchThread.ts). A page past the end counts the hits still.
 */
export async function searchHere(
  db: Kysely<Database>,
  engine: Engine,
  accountId: number,
  query: SearchQuery,
  page: { limit: number; offset: number; rankedHits?: number },
): Promise<SearchPage> {
  const cap = page.rankedHits ?? RANKED_HITS;
  const plan = engine === 'sqlite' ? sqlitePlan(query) : postgresPlan(query);
  const where = sql`${plan.account ?? sql`d.account_id`} = ${accountId} ${plan.where}`;
  const matches = sql`${plan.from} where ${where}`;
  const counted = plan.rank === undefined ? await unrankedPage(db, plan, matches, cap, page) : null;
  const total = counted?.total ?? (await countMatches(db, matches, cap));
  const capped = total > cap;
  if (total === 0 || page.offset >= total) return { total, capped, rows: [] };
  const found = counted?.rows ?? (await pageOf(db, plan, matches, capped, page));
  const details = await rowsOf(db, accountId, found);
  const rows = found.flatMap((r) => details.get(`${r.kind}:${r.item_id}`) ?? []);
  return { total, capped, rows };
}

type Found = { id: number; kind: SearchKind; item_id: number };

/** The matches counted, up to cap + 1. */
async function countMatches(
  db: Kysely<Database>,
  matches: RawBuilder<unknown>,
  cap: number,
): Promise<number> {
  const counted = await sql<{ n: number }>`select count(*) as n from (
    select 1 as one from ${matches} limit ${cap + 1}) c`.execute(db);
  return counted.rows[0]?.n ?? 0;
}

/** A page of ranked matches, best first (newest first, in index order, when capped). */
async function pageOf(
  db: Kysely<Database>,
  plan: Plan,
  matches: RawBuilder<unknown>,
  capped: boolean,
  page: { limit: number; offset: number },
): Promise<Found[]> {
  const order =
    capped || plan.rank === undefined ? plan.newest : sql`${plan.rank}, d.created_at desc, d.id desc`;
  const found = await sql<Found>`select d.id, d.kind, d.item_id from ${matches}
    order by ${order} limit ${page.limit} offset ${page.offset}`.execute(db);
  return found.rows;
}

/**
 * Matches that are not scored (every term a substring or an exclusion) in one statement: the newest
 * cap + 1 of them (or as many as the page reaches) are read once, in index order, then counted and
 * paged: by creation when they are all there, as read when capped. A single CJK character (9,000 of
 * 100,000 documents in bench:search) was read twice before, once to count and once for the page. The
 * total is null when the page is past the end (counted again then). The count is its own materialized
 * step, made once: inlined, PostgreSQL (which guesses one hit for a string of LIKE tests) joined it as
 * the inner side of a nested loop and counted the hits again for each hit, 10,000 × 10,000 rows for 16
 * one-character terms each in 10,000 items (8 s; issue 25, F5).
 */
async function unrankedPage(
  db: Kysely<Database>,
  plan: Plan,
  matches: RawBuilder<unknown>,
  cap: number,
  page: { limit: number; offset: number },
): Promise<{ total: number | null; rows: Found[] }> {
  const found = await sql<Found & { total: number }>`
    with hits as materialized (select d.id, d.kind, d.item_id, d.created_at from ${matches}
      order by ${plan.newest} limit ${Math.max(cap + 1, page.offset + page.limit)}),
    counted as materialized (select count(*) as total from hits)
    select id, kind, item_id, total from hits, counted
    order by case when total > ${cap} then null else created_at end desc, id desc
    limit ${page.limit} offset ${page.offset}`.execute(db);
  const first = found.rows[0];
  if (first === undefined) return { total: page.offset === 0 ? 0 : null, rows: [] };
  return {
    total: Math.min(first.total, cap + 1),
    rows: found.rows.map(({ id, kind, item_id }) => ({ id, kind, item_id })),
  };
}

interface Plan {
  from: RawBuilder<unknown>;
  /** The column tested against the account, when not d.account_id. */
  account?: RawBuilder<unknown>;
  /** Conditions after the account's, each starting with "and". */
  where: RawBuilder<unknown>;
  /** How the matches are ranked, best first; absent when nothing is scored (newest first then). */
  rank?: RawBuilder<unknown>;
  /** Newest first, in an order the engine reads from its index without sorting every match. */
  newest: RawBuilder<unknown>;
}

const byKind = (query: SearchQuery) => {
  const wordsOnly = (c: SearchClause) => c.terms.every((t) => !t.substring);
  return {
    matched: query.clauses.filter((c) => wordsOnly(c) && !c.excluded),
    left: query.clauses.filter((c) => wordsOnly(c) && c.excluded),
    other: query.clauses.filter((c) => !wordsOnly(c)),
  };
};

/** FTS5 query text: each term a quoted phrase of its words (letters, digits, marks: no quote to escape). */
const ftsTerm = (t: SearchTerm) => `"${t.words.join(' ')}"`;
const ftsClause = (c: SearchClause) => `(${c.terms.map(ftsTerm).join(' OR ')})`;

function sqlitePlan(query: SearchQuery): Plan {
  const { matched, left, other } = byKind(query);
  const conditions = other.map((c) =>
    clauseCondition(c, sqliteContains, (t) => sql`d.id in (${ftsIds(ftsTerm(t))})`),
  );
  if (matched.length === 0) {
    for (const c of left) conditions.push(sql`not (d.id in (${ftsIds(ftsClause(c))}))`);
    return {
      from: sql`search_documents d`,
      // Every clause looked for is a list of ids from an index: read those documents by id, not every
      // document of the account by search_documents_account_idx (100,000 of them in bench:search).
      account: sql`+d.account_id`,
      where: and(conditions),
      newest: sql`d.id desc`,
    };
  }
  const expression =
    `(${matched.map(ftsClause).join(' AND ')})` + left.map((c) => ` NOT ${ftsClause(c)}`).join('');
  return {
    from: sql`search_fts f join search_documents d on d.id = f.rowid`,
    where: sql`and search_fts match ${expression} ${and(conditions)}`,
    rank: sql`bm25(search_fts, 10.0, 5.0, 3.0, 2.0, 1.0)`,
    newest: sql`f.rowid desc`,
  };
}

const ftsIds = (expression: string) => sql`select rowid from search_fts where search_fts match ${expression}`;

const tsTerm = (t: SearchTerm) => sql`phraseto_tsquery('simple', ${t.words.join(' ')})`;
const tsClause = (c: SearchClause) => sql`(${sql.join(c.terms.map(tsTerm), sql` || `)})`;

function postgresPlan(query: SearchQuery): Plan {
  const { matched, left, other } = byKind(query);
  const conditions = other.map((c) =>
    clauseCondition(c, postgresContains, (t) => sql`d.tsv @@ ${tsTerm(t)}`),
  );
  for (const c of left) conditions.push(sql`not (d.tsv @@ ${tsClause(c)})`);
  const newest = sql`d.id desc`;
  if (matched.length === 0) {
    return { from: sql`search_documents d`, where: and(conditions), newest };
  }
  const tsquery = sql`(${sql.join(matched.map(tsClause), sql` && `)})`;
  return {
    from: sql`search_documents d`,
    where: sql`and d.tsv @@ ${tsquery} ${and(conditions)}`,
    rank: sql`ts_rank(d.tsv, ${tsquery}) desc`,
    newest,
  };
}

/** A clause with a substring term, as a condition on `d`: its terms OR'd, negated when excluded. */
function clauseCondition(
  c: SearchClause,
  contains: (needle: string) => RawBuilder<unknown>,
  words: (t: SearchTerm) => RawBuilder<unknown>,
): RawBuilder<unknown> {
  const terms = c.terms.map((t) => (t.substring ? contains(termText(t)) : words(t)));
  const any = sql`(${sql.join(terms, sql` or `)})`;
  return c.excluded ? sql`not ${any}` : any;
}

/*
 * A substring term (a script without spaces) is looked up in migration 0017's trigram index of the
 * documents that hold such a script: their text as search_texts gives it, fields joined by spaces and
 * lower-cased by the engine's lower(), as the term is here, so that a hit is a document whose text holds
 * the term exactly as a scan would find it.
 */

/**
 * SQLite: a term of 3 characters or more is an FTS5 phrase of the trigram tokenizer (its trigrams, in
 * order); a shorter one is in the documents of every trigram that begins with it (search_grams_instances,
 * a range of the index; each indexed text ends with two spaces, so every character begins a trigram). The
 * term has letters, digits, marks and spaces only: no quote to escape.
 */
function sqliteContains(needle: string): RawBuilder<unknown> {
  if (codePoints(needle) >= 3) return sql`d.id in (${gramIds(sql`'"' || lower(${needle}) || '"'`)})`;
  const prefix = sql`lower(${needle})`;
  const after = sql`substr(${prefix}, 1, length(${prefix}) - 1) || char(unicode(substr(${prefix}, -1)) + 1)`;
  return sql`d.id in (select doc from search_grams_instances where term >= ${prefix} and term < ${after})`;
}

const gramIds = (expression: RawBuilder<unknown>) =>
  sql`select rowid from search_grams where search_grams match ${expression}`;

/**
 * PostgreSQL: LIKE '%term%' on search_documents.grams, which pg_trgm's GIN index reads for a term of 3
 * characters or more; a shorter term has no trigram and is a scan of the grams (of the documents that have
 * any), as it is when the index could not be made (docs/search.md). False, never null, for a document
 * without grams, so that an excluded term (`-東京`) keeps it.
 */
const postgresContains = (needle: string): RawBuilder<unknown> =>
  sql`(d.grams is not null and d.grams like '%' || lower(${needle}) || '%')`;

const and = (conditions: RawBuilder<unknown>[]) =>
  conditions.length === 0 ? sql`` : sql`and ${sql.join(conditions, sql` and `)}`;

/** Each found item's row, keyed "kind:item_id"; an item deleted meanwhile is absent. */
async function rowsOf(
  db: Kysely<Database>,
  accountId: number,
  found: readonly { kind: SearchKind; item_id: number }[],
): Promise<Map<string, SearchRow>> {
  const ids = (kind: SearchKind) => found.filter((f) => f.kind === kind).map((f) => f.item_id);
  const out = new Map<string, SearchRow>();
  const queued = ids('queue');
  if (queued.length > 0) {
    const rows = await db
      .selectFrom('queue_items as i')
      .leftJoin('pages as p', (j) => j.onRef('p.id', '=', 'i.page_id').on('p.state', '=', 'read'))
      .leftJoin('feeds as f', 'f.id', 'i.feed_id')
      .leftJoin('subscriptions as s', (j) =>
        j.onRef('s.feed_id', '=', 'i.feed_id').onRef('s.account_id', '=', 'i.account_id'),
      )
      .select((eb) => [
        sql<SearchKind>`'queue'`.as('kind'),
        'i.id as item_id',
        sql<null>`null`.as('digest_id'),
        sql<null>`null`.as('digest_date'),
        'i.created_at',
        'i.url',
        'i.title',
        'i.summary',
        eb.fn.coalesce('s.title', 'f.title').as('feed_title'),
        ...pageColumns,
      ])
      .where('i.account_id', '=', accountId)
      .where('i.id', 'in', queued)
      .execute();
    for (const r of rows) out.set(`queue:${r.item_id}`, r);
  }
  const digested = ids('digest');
  if (digested.length > 0) {
    const rows = await db
      .selectFrom('digest_items as i')
      .innerJoin('digests as g', 'g.id', 'i.digest_id')
      .leftJoin('pages as p', (j) => j.onRef('p.id', '=', 'i.page_id').on('p.state', '=', 'read'))
      .select([
        sql<SearchKind>`'digest'`.as('kind'),
        'i.id as item_id',
        'i.digest_id',
        'g.local_date as digest_date',
        'g.created_at',
        'i.url',
        'i.title',
        'i.summary',
        'i.feed_title',
        'g.account_id',
        ...pageColumns,
      ])
      .where('i.id', 'in', digested)
      .execute();
    // The account is checked here, not in SQL: with it bound, SQLite walks every item of the account's
    // digests (by digests.account_id) instead of reading the 20 items by id.
    for (const { account_id, ...r } of rows) if (account_id === accountId) out.set(`digest:${r.item_id}`, r);
  }
  const reading = ids('reading');
  if (reading.length > 0) {
    // A reading-list item: its description is the summary; the text it brought stands for a page's.
    const rows = await db
      .selectFrom('reading_list as i')
      .leftJoin('pages as p', (j) => j.onRef('p.id', '=', 'i.page_id').on('p.state', '=', 'read'))
      .select([
        sql<SearchKind>`'reading'`.as('kind'),
        'i.id as item_id',
        sql<null>`null`.as('digest_id'),
        sql<null>`null`.as('digest_date'),
        'i.saved_at as created_at',
        'i.url',
        'i.title',
        'i.description as summary',
        sql<null>`null`.as('feed_title'),
        'p.title as page_title',
        'p.description as page_description',
        'p.site_name',
        sql<string | null>`substr(coalesce(p.text, i.text), 1, ${INDEXED_TEXT_CHARS})`.as('page_text'),
      ])
      .where('i.account_id', '=', accountId)
      .where('i.id', 'in', reading)
      .execute();
    for (const r of rows) out.set(`reading:${r.item_id}`, r);
  }
  return out;
}

const pageColumns = [
  'p.title as page_title',
  'p.description as page_description',
  'p.site_name',
  sql<string | null>`substr(p.text, 1, ${INDEXED_TEXT_CHARS})`.as('page_text'),
] as const;
