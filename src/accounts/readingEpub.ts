import { type ArticleBody, type Book, epubDate, nameUuid } from '../digest/epub/book.js';
import { type EpubBuilds, epubBuilds } from '../digest/epub/builds.js';
import { type EpubImageSource, withImages } from '../digest/epub/images.js';
import { LANGUAGE } from '../digest/epub/xhtml.js';
import { readingTime } from '../lib/display.js';
import { domainOf } from '../lib/url.js';
import { DEFAULT_LANGUAGE } from '../i18n/languages.js';
import { accountById } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { readPageById } from '../store/pageReads.js';
import { type ReadingRow, readingItem } from '../store/readingList.js';
import type { AccountId } from './authorize.js';

export { EpubBuildError, isEpubBuildError } from '../digest/epub/builds.js';

/*
 * One reading-list entry as an EPUB (the OPDS catalogue's reading list, the wallabag API's
 * `export.epub`): a cover with its title, site and when it was saved, then its one chapter: the page read
 * for it (or the readable text its import brought), its images embedded (digest/epub/images.ts), else its
 * description and link. Made as a digest's EPUB is (digest/epub/builds.ts): the data read here, the file
 * in the process's EPUB thread, one at a time.
 */

export interface ReadingEpubDeps {
  store: Store;
  /** Where the article's images are fetched (the media proxy's fetching); without it they are left out. */
  images?: EpubImageSource | undefined;
  /** Where the file is made: the process's builds unless a test gives its own. */
  epubBuilds?: EpubBuilds | undefined;
  /** 'bounded' (a request, the default): refused as busy past the builds' waiting limits. */
  queue?: 'bounded' | 'unbounded';
}

export interface ReadingEpub {
  /** `title-words-ID.epub`, ASCII. */
  fileName: string;
  bytes: Uint8Array;
  book: Book;
}

/**
 * The EPUB of one of the account's reading-list entries; null when it has none of that id. Rejects with
 * an EpubBuildError of kind `busy` (every build's turn taken: try again after its retryAfterSeconds) or
 * `failed` (the build's thread crashed or passed a limit).
 */
export async function readingEntryEpub(
  deps: ReadingEpubDeps,
  accountId: AccountId,
  entryId: number,
): Promise<ReadingEpub | null> {
  const { db } = deps.store;
  if ((await readingItem(db, accountId, entryId)) === null) return null;
  const built = await (deps.epubBuilds ?? epubBuilds).build(async () => {
    // Read again once the build has its turn: the cap on builds bounds the books in memory.
    const row = await readingItem(db, accountId, entryId);
    if (row === null) return null;
    const account = await accountById(db, accountId);
    const book = await entryBook(deps.store, row);
    // An account that chose to see no remote images gets none in its books either.
    return { book: account?.show_images === false ? book : await withImages(book, deps.images) };
  }, deps.queue ?? 'bounded');
  if (built === null) return null;
  return { fileName: readingEpubFileName(built.book.title, entryId), bytes: built.bytes, book: built.book };
}

async function entryBook(store: Store, row: ReadingRow): Promise<Book> {
  const page = row.page_id === null ? null : await readPageById(store.db, row.page_id);
  const html = page?.html ?? row.html;
  const language = page?.language ?? null;
  const article: ArticleBody | null =
    html === null
      ? null
      : {
          html,
          author: page?.author ?? row.author,
          siteName: page?.site_name ?? null,
          language,
          direction: page?.direction ?? null,
        };
  const title = row.title.trim() || page?.title?.trim() || row.url;
  const site = page?.site_name?.trim() || domainOf(row.url);
  const tags = row.tags.split('\n').filter((t) => t !== '');
  const saved = [
    `saved ${row.saved_at.slice(0, 10)}`,
    ...(tags.length === 0 ? [] : [`tagged ${tags.join(', ')}`]),
  ];
  return {
    identifier: `urn:uuid:${nameUuid(`tidings reading ${row.account_id} ${row.id} ${row.created_at}`)}`,
    title,
    dateLabel: row.saved_at.slice(0, 10),
    localDate: row.saved_at.slice(0, 10),
    modified: epubDate(row.updated_at),
    language: language !== null && LANGUAGE.test(language) ? language : DEFAULT_LANGUAGE,
    counts: { items: 1, entries: 1, articles: article === null ? 0 : 1 },
    kind: 'article',
    coverLines: [site, readingTime(page) ?? '', saved.join(' · ')],
    sections: [
      {
        title,
        more: 0,
        entries: [
          {
            title,
            href: row.url,
            site,
            readingTime: readingTime(page),
            excerpt: row.description ?? page?.description ?? '',
            article,
            saved: saved.join(' · '),
          },
        ],
      },
    ],
  };
}

/** The file's name: the title's first words in ASCII, then the entry's id (`council-approves-tram-12.epub`). */
export function readingEpubFileName(title: string, entryId: number): string {
  const words = title
    .normalize('NFKD')
    .replace(/[^\x20-\x7e]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${words === '' ? 'tidings-entry' : words}-${entryId}.epub`;
}
