import { createHash } from 'node:crypto';
import type { DigestView } from '../view.js';

/** An EPUB file's media type: its zip's first entry, and the Content-Type it is sent with. */
export const EPUB_MEDIA_TYPE = 'application/epub+zip';

/*
 * What goes into a digest's EPUB, resolved from its view and the pages read for it (load.ts): a cover,
 * then one section per group of the digest (own links, top stories, each feed…, and "From your reading
 * list" last), each with a page that
 * lists its entries and, after it, one chapter per entry whose page was read. The view's private links
 * (the web page, the reading view, the email's actions: they carry the account's tokens) are not used:
 * the file may be mailed to an e-reader service and kept there, so it links only to the articles.
 */

/** A page read for an entry, as its chapter shows it. */
export interface ArticleBody {
  /** Sanitised reader HTML (pages.html). */
  html: string;
  author: string | null;
  siteName: string | null;
  language: string | null;
  direction: string | null;
}

export interface BookEntry {
  title: string;
  /** The article's own link (absolute http(s)), or null. */
  href: string | null;
  /** The site's name, else the link's domain; "" without either. */
  site: string;
  /** "6 min read", or null. */
  readingTime: string | null;
  excerpt: string;
  /** The page read for it; null when it was not read (the section page then shows its link and summary). */
  article: ArticleBody | null;
  /** A reading-list item's "saved 3 years ago" (and its tags); absent for the digest's entries. */
  saved?: string;
}

/** An image inside the book (images.ts). */
export interface BookImage {
  /** The address (or data: URI) as the article's `<img src>` has it. */
  src: string;
  /** Relative to the package document: `images/1.png`. */
  href: string;
  mediaType: string;
  bytes: Uint8Array;
}

export interface BookSection {
  title: string;
  entries: BookEntry[];
  /** The feed's entries the digest only counts ("and 12 more from …, on the web page"); 0 otherwise. */
  more: number;
}

export interface Book {
  /** urn:uuid:…, the same for a digest every time its book is made. */
  identifier: string;
  title: string;
  /** "Sunday 22 November 2026". */
  dateLabel: string;
  /** YYYY-MM-DD: the file's name. */
  localDate: string;
  /** CCYY-MM-DDThh:mm:ssZ: the digest's build, so the same digest makes the same file. */
  modified: string;
  /** The language of the book's own text (its headings and cover): the account's (Locale's `lang`). */
  language: string;
  /** Its direction: the spine's page-progression-direction and the `dir` of its own pages. */
  dir?: 'ltr' | 'rtl';
  /**
   * The whole digest's items, and those the book holds (`entries`: the digest's own, the reading list's
   * not counted; `articles`: every chapter read, the reading list's included).
   */
  counts: { items: number; entries: number; articles: number };
  sections: BookSection[];
  /** The articles' images the file holds (images.ts); none when absent. */
  images?: BookImage[];
  /**
   * 'digest' (the default): a cover with the digest's counts, a page per section, its chapters.
   * 'article' (one reading-list entry, accounts/readingEpub.ts): a cover with the title and `coverLines`,
   * then its one chapter, no section page.
   */
  kind?: 'digest' | 'article';
  coverLines?: string[];
}

/** The book of a digest's view, with the bodies of the pages read for its entries, by page id. */
export function bookOf(
  view: DigestView,
  bodies: ReadonlyMap<number, ArticleBody>,
  ownBodies: ReadonlyMap<number, ArticleBody> = new Map(),
): Book {
  const sections: BookSection[] = view.groups.map((group) => ({
    title: group.title,
    more: group.more?.count ?? 0,
    entries: group.items.map((item): BookEntry => ({
      title: item.title,
      href: item.href,
      site: item.siteName ?? item.domain,
      readingTime: item.readingTime,
      excerpt: item.excerpt,
      article: item.pageId === null ? null : (bodies.get(item.pageId) ?? null),
    })),
  }));
  // The cover's "N entries of M items" counts the digest's own; the reading list's come on top.
  const entries = sections.reduce((n, s) => n + s.entries.length, 0);
  if (view.resurfaced.length > 0) sections.push(resurfacedSection(view, bodies, ownBodies));
  const articles = sections.reduce((n, s) => n + s.entries.filter((e) => e.article !== null).length, 0);
  return {
    identifier: `urn:uuid:${digestUuid(view)}`,
    title: view.locale.t('digest.title', { date: view.dateLabel }),
    dateLabel: view.dateLabel,
    localDate: view.localDate,
    modified: epubDate(view.createdAt),
    language: view.locale.lang,
    dir: view.locale.dir,
    counts: { items: view.counts.items, entries, articles },
    sections,
  };
}

/**
 * "From your reading list" as the book's last section: each item as its read page, else the readable
 * text its export brought (`ownBodies`, by reading-list id), else its link and description.
 */
function resurfacedSection(
  view: DigestView,
  bodies: ReadonlyMap<number, ArticleBody>,
  ownBodies: ReadonlyMap<number, ArticleBody>,
): BookSection {
  return {
    title: view.locale.t('digest.section.resurfaced'),
    more: 0,
    entries: view.resurfaced.map((r): BookEntry => ({
      title: r.title,
      href: r.href,
      site: r.site,
      readingTime: r.readingTime,
      excerpt: r.excerpt,
      article: (r.pageId === null ? null : bodies.get(r.pageId)) ?? ownBodies.get(r.readingId) ?? null,
      saved: [
        r.savedLabel,
        ...(r.tags.length === 0
          ? []
          : [view.locale.t('digest.item.tagged', { tags: view.locale.list(r.tags) })]),
      ].join(' · '),
    })),
  };
}

/** The file's name: `tidings-YYYY-MM-DD.epub`, the digest's day in the reader's zone. */
export function epubFileName(localDate: string): string {
  return `tidings-${localDate}.epub`;
}

/**
 * A name-based UUID (the layout of version 5, from SHA-256) of the digest: its id, the account's and its
 * build time, so a digest of another database with the same id is another book.
 */
function digestUuid(view: Pick<DigestView, 'id' | 'createdAt' | 'account'>): string {
  return nameUuid(`tidings digest ${view.account.id} ${view.id} ${view.createdAt}`);
}

/** A name-based UUID (version 5's layout, from SHA-256) of a name: the same name, the same UUID. */
export function nameUuid(name: string): string {
  const h = createHash('sha256').update(name).digest();
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x50;
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** dcterms:modified's form: seconds, no fraction, UTC. */
export function epubDate(iso: string): string {
  const ms = Date.parse(iso);
  return `${new Date(Number.isNaN(ms) ? 0 : ms).toISOString().slice(0, 19)}Z`;
}
