import type { Kysely } from 'kysely';
import { digestById } from '../../store/digests.js';
import { pageBodiesByIds } from '../../store/pageReads.js';
import type { Database } from '../../store/schema.js';
import { EMAIL_ITEMS } from '../limits.js';
import { loadClaimedDigests } from '../load.js';
import { type ArticleBody, type Book, bookOf, epubFileName } from './book.js';
import { lazy } from '../../lib/lazy.js';

/** The zip writer and the XHTML rewriting (fflate, htmlparser2), loaded by the first EPUB made (issue 26). */
const epubPackage = lazy(() => import('./package.js'));

/**
 * A digest's EPUB: the entries its email shows (the first EMAIL_ITEMS, each feed's past its share only
 * counted), each read page as a chapter. Bounded as the email is: at most EMAIL_ITEMS chapters of at most
 * MAX_HTML_CHARS each.
 */
export interface DigestEpub {
  /** `tidings-YYYY-MM-DD.epub`. */
  fileName: string;
  bytes: Uint8Array;
  book: Book;
  /** Its download link (`/digests/ID/epub?token=…`) and day, for the e-reader copy's message. */
  link: string;
  dateShort: string;
}

/** The EPUB of one of the account's digests; null when it has no such digest. */
export async function digestEpub(
  db: Kysely<Database>,
  accountId: number,
  digestId: number,
  baseUrl: string,
): Promise<DigestEpub | null> {
  const digest = await digestById(db, accountId, digestId);
  if (digest === null) return null;
  const loaded = (await loadClaimedDigests(db, [digest], baseUrl, EMAIL_ITEMS)).get(digest.id);
  if (loaded === undefined) return null;
  const pageIds = loaded.view.groups.flatMap((g) =>
    g.items.flatMap((i) => (i.pageId === null ? [] : [i.pageId])),
  );
  const rows = await pageBodiesByIds(db, pageIds);
  const bodies = new Map<number, ArticleBody>(
    [...rows].map(([id, r]) => [
      id,
      { html: r.html, author: r.author, siteName: r.site_name, language: r.language, direction: r.direction },
    ]),
  );
  const book = bookOf(loaded.view, bodies);
  const { epubBytes } = await epubPackage();
  return {
    fileName: epubFileName(book.localDate),
    bytes: epubBytes(book),
    book,
    link: loaded.view.links.epub,
    dateShort: loaded.view.dateShort,
  };
}
