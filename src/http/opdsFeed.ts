import { generateAtomFeed } from 'feedsmith';
import type { OpdsReadingEntry } from '../accounts/opds.js';
import { xmlSafe } from '../digest/render/atom.js';
import type { Digest } from '../store/digests.js';

/*
 * The OPDS 1.2 catalogue's feeds (docs/apps.md#opds-catalogue), written by feedsmith's Atom writer (the
 * library the digests' Atom feed uses: it escapes every value and writes well-formed XML; the strings
 * pass xmlSafe first, so no character XML 1.0 forbids gets in). A navigation feed at the root with two
 * subsections, and an acquisition feed per list, paged by `rel="next"`/`"previous"`/`"first"`/`"last"`.
 */

export const NAVIGATION_TYPE = 'application/atom+xml;profile=opds-catalog;kind=navigation';
export const ACQUISITION_TYPE = 'application/atom+xml;profile=opds-catalog;kind=acquisition';
export const ACQUISITION_REL = 'http://opds-spec.org/acquisition';
export const IMAGE_REL = 'http://opds-spec.org/image';
export const THUMBNAIL_REL = 'http://opds-spec.org/image/thumbnail';
const EPUB_TYPE = 'application/epub+zip';

/** How the feeds make their links: every path with the private token when the catalogue was opened by one. */
export interface OpdsLinks {
  /** An absolute URL of the catalogue's `path` (`/opds/…`), with `?page=` and the token as needed. */
  href(path: string, page?: number): string;
  /** The tag: URIs' authority and date: the instance's host. */
  host: string;
}

interface PageOf {
  /** 1-based. */
  number: number;
  size: number;
  total: number;
}

const pages = (p: PageOf): number => Math.max(1, Math.ceil(p.total / p.size));

function pagingLinks(links: OpdsLinks, path: string, page: PageOf) {
  const last = pages(page);
  const at = (rel: string, n: number) => ({ rel, type: ACQUISITION_TYPE, href: links.href(path, n) });
  return [
    { rel: 'self', type: ACQUISITION_TYPE, href: links.href(path, page.number) },
    { rel: 'start', type: NAVIGATION_TYPE, href: links.href('/opds') },
    { rel: 'up', type: NAVIGATION_TYPE, href: links.href('/opds') },
    at('first', 1),
    at('last', last),
    ...(page.number > 1 ? [at('previous', Math.min(page.number - 1, last))] : []),
    ...(page.number < last ? [at('next', page.number + 1)] : []),
  ];
}

/** The root: a navigation feed with the digests and the reading list. */
export function navigationFeed(
  links: OpdsLinks,
  counts: { digests: number; unread: number },
  updated: Date,
): string {
  const sub = (path: string, title: string, summary: string) => ({
    id: `tag:${links.host},2026:opds${path}`,
    title: { type: 'text' as const, value: title },
    updated,
    content: { type: 'text' as const, value: summary },
    links: [{ rel: 'subsection', type: ACQUISITION_TYPE, href: links.href(path) }],
  });
  return generateAtomFeed({
    id: `tag:${links.host},2026:opds`,
    title: { type: 'text', value: 'Tidings' },
    updated,
    authors: [{ name: 'Tidings' }],
    links: [
      { rel: 'self', type: NAVIGATION_TYPE, href: links.href('/opds') },
      { rel: 'start', type: NAVIGATION_TYPE, href: links.href('/opds') },
    ],
    entries: [
      sub('/opds/digests', 'Digests', `Each digest as an EPUB, newest first (${counts.digests}).`),
      sub('/opds/reading', 'Reading list', `Each unread entry as an EPUB (${counts.unread}).`),
    ],
  });
}

/** A page of the digests: one entry per digest, its EPUB to download. */
export function digestsFeed(
  links: OpdsLinks,
  digests: readonly Digest[],
  page: PageOf,
  updated: Date,
): string {
  return generateAtomFeed({
    id: `tag:${links.host},2026:opds/digests`,
    title: { type: 'text', value: 'Digests' },
    updated,
    authors: [{ name: 'Tidings' }],
    links: pagingLinks(links, '/opds/digests', page),
    entries: digests.map((d) => ({
      id: `tag:${links.host},2026:digests/${d.id}`,
      title: { type: 'text' as const, value: `Tidings — ${d.local_date}` },
      updated: new Date(d.created_at),
      published: new Date(d.created_at),
      authors: [{ name: 'Tidings' }],
      summary: {
        type: 'text' as const,
        value: `${d.item_count} ${d.item_count === 1 ? 'item' : 'items'}: ${d.saved_count} saved, ${d.feed_count} from feeds.`,
      },
      links: [{ rel: ACQUISITION_REL, type: EPUB_TYPE, href: links.href(`/opds/digests/${d.id}.epub`) }],
    })),
  });
}

/** A page of the unread reading list: one entry per link, its EPUB to download, its cover when it has one. */
export function readingFeed(
  links: OpdsLinks,
  entries: readonly (OpdsReadingEntry & { coverHref: string | null })[],
  page: PageOf,
  updated: Date,
): string {
  return generateAtomFeed({
    id: `tag:${links.host},2026:opds/reading`,
    title: { type: 'text', value: 'Reading list' },
    updated,
    authors: [{ name: 'Tidings' }],
    links: pagingLinks(links, '/opds/reading', page),
    entries: entries.map((e) => ({
      id: `tag:${links.host},2026:reading/${e.id}`,
      title: { type: 'text' as const, value: xmlSafe(e.title) },
      updated: new Date(e.savedAt),
      authors: [{ name: xmlSafe(e.site) }],
      ...(e.tags.length === 0
        ? {}
        : { categories: e.tags.map((t) => ({ term: xmlSafe(t), label: xmlSafe(t) })) }),
      summary: {
        type: 'text' as const,
        value: xmlSafe([e.readingTime, e.summary].filter((x) => x !== null && x !== '').join(' · ') || e.url),
      },
      links: [
        { rel: ACQUISITION_REL, type: EPUB_TYPE, href: links.href(`/opds/reading/${e.id}.epub`) },
        { rel: 'alternate', type: 'text/html', href: e.url },
        ...(e.coverHref === null
          ? []
          : [
              { rel: IMAGE_REL, href: e.coverHref },
              { rel: THUMBNAIL_REL, href: e.coverHref },
            ]),
      ],
    })),
  });
}
