import type { Kysely } from 'kysely';
import { accountById } from '../../store/accounts.js';
import { digestById } from '../../store/digests.js';
import { pageBodiesByIds } from '../../store/pageReads.js';
import { offeredHtmlByIds } from '../../store/readingListOffers.js';
import type { Database } from '../../store/schema.js';
import { EMAIL_ITEMS } from '../limits.js';
import { loadClaimedDigests } from '../load.js';
import { type ArticleBody, type Book, bookOf, epubFileName } from './book.js';
import { type EpubBuilds, epubBuilds } from './builds.js';
import { type EpubImageSource, withImages } from './images.js';

/**
 * A digest's EPUB: the entries its email shows (its email's view, each feed's past its share only
 * counted), each read page as a chapter. Bounded as the email's view is: at most EMAIL_ROWS chapters of at
 * most MAX_HTML_CHARS each.
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

export interface EpubOptions {
  /** Where the bytes are made (builds.ts); this process's unless a test gives its own. */
  builds?: EpubBuilds;
  /**
   * 'bounded' (a request): refused as busy when too many wait for a turn or the wait is too long;
   * 'unbounded' (the mailer, the CLI): waits its turn however long.
   */
  queue?: 'bounded' | 'unbounded';
  /**
   * Where the articles' images are fetched to be embedded (images.ts: the media proxy's fetching); without
   * one, images are left out (their alt text kept), data: images aside.
   */
  images?: EpubImageSource | undefined;
}

/**
 * The EPUB of one of the account's digests; null when it has no such digest. The data is read here (on
 * the caller's thread), the file made in a thread of `builds`: rejects with its EpubBuildError (busy,
 * failed) when it could not be.
 */
export async function digestEpub(
  db: Kysely<Database>,
  accountId: number,
  digestId: number,
  baseUrl: string,
  options: EpubOptions = {},
): Promise<DigestEpub | null> {
  const digest = await digestById(db, accountId, digestId);
  if (digest === null) return null;
  const built = await (options.builds ?? epubBuilds).build(async () => {
    // Read only once the build has its turn: the cap on builds bounds the books held in memory too.
    const loaded = (await loadClaimedDigests(db, [digest], baseUrl, EMAIL_ITEMS)).get(digest.id);
    if (loaded === undefined) return null;
    const { groups, resurfaced } = loaded.view;
    const pageIds = [
      ...groups.flatMap((g) => g.items.flatMap((i) => (i.pageId === null ? [] : [i.pageId]))),
      ...resurfaced.flatMap((r) => (r.pageId === null ? [] : [r.pageId])),
    ];
    const rows = await pageBodiesByIds(db, pageIds);
    const bodies = new Map<number, ArticleBody>(
      [...rows].map(([id, r]) => [
        id,
        {
          html: r.html,
          author: r.author,
          siteName: r.site_name,
          language: r.language,
          direction: r.direction,
        },
      ]),
    );
    // Reading-list items that brought their text (Omnivore, Wallabag) and have no page read: that text.
    const own = await offeredHtmlByIds(
      db,
      accountId,
      resurfaced.filter((r) => r.ownText && r.pageId === null).map((r) => r.readingId),
    );
    const ownBodies = new Map<number, ArticleBody>(
      [...own].map(([id, r]) => [
        id,
        { html: r.html, author: r.author, siteName: null, language: null, direction: null },
      ]),
    );
    const book = bookOf(loaded.view, bodies, ownBodies);
    // An account that chose to see no remote images gets none in its books either.
    const showImages = (await accountById(db, accountId))?.show_images !== false;
    return {
      book: showImages ? await withImages(book, options.images) : book,
      link: loaded.view.links.epub,
      dateShort: loaded.view.dateShort,
    };
  }, options.queue ?? 'bounded');
  if (built === null) return null;
  const { book, bytes, link, dateShort } = built;
  return { fileName: epubFileName(book.localDate), bytes, book, link, dateShort };
}
