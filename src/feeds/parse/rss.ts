import type { RdfFeed, RssFeed } from 'feedsmith';
import {
  type EnclosureFields,
  type EntryFields,
  type Markup,
  type ReadContext,
  plainText,
  toFeedItem,
} from './entry.js';
import { mediaImages } from './images.js';
import type { FeedContent } from './model.js';
import { alternateLink, atomText, enclosureLink, personNames, selfLink, ttlMinutes } from './namespaces.js';
import { nestedBase, resolveHttpUrl } from './urls.js';

type RssItem = RssFeed.Item<string>;
type RdfItem = RdfFeed.Item<string>;

/**
 * RSS text elements may hold plain text or HTML, and publishers do both ("Q&amp;A", "&lt;b&gt;"), so
 * every one is read as HTML: what looks like a tag or an entity is one.
 */
function rssText(value: string | undefined): Markup | undefined {
  return value === undefined ? undefined : { type: 'html', value };
}

export function fromRss(feed: RssFeed.Feed<string>, ctx: ReadContext): FeedContent {
  const { base, ...channel } = readChannel(feed, ctx);
  return {
    format: 'rss',
    ...channel,
    ttlMinutes: ttlMinutes(feed.ttl, feed.sy),
    items: (feed.items ?? []).map((item) => toFeedItem(rssEntry(item, base), ctx.now)),
  };
}

/** RSS 0.90 and 1.0: the same channel and items as RSS 2.0 with fewer elements, and rdf:about ids. */
export function fromRdf(feed: RdfFeed.Feed<string>, ctx: ReadContext): FeedContent {
  const { base, ...channel } = readChannel(feed, ctx);
  return {
    format: 'rdf',
    ...channel,
    ttlMinutes: ttlMinutes(undefined, feed.sy),
    items: (feed.items ?? []).map((item) => toFeedItem(rdfEntry(item, base), ctx.now)),
  };
}

/** The channel's fields, and the base its items' relative links resolve against. */
function readChannel(
  feed: RssFeed.Feed<string> | RdfFeed.Feed<string>,
  ctx: ReadContext,
): Pick<FeedContent, 'title' | 'siteUrl' | 'feedUrl'> & { base: string | null } {
  const feedBase = nestedBase(feed.xml?.base, ctx.url);
  const siteUrl = resolveHttpUrl(feed.link ?? alternateLink(feed.atom?.links), feedBase);
  const base = feedBase ?? siteUrl;
  const title = feed.title ?? feed.dc?.titles?.[0];
  return {
    title: title === undefined ? '' : plainText({ type: 'html', value: title }),
    siteUrl,
    feedUrl: resolveHttpUrl(selfLink(feed.atom?.links), base),
    base,
  };
}

function rssEntry(item: RssItem, feedBase: string | null): EntryFields {
  return {
    guid: item.guid?.value,
    guidIsLink: item.guid?.isPermaLink !== false,
    link: item.link ?? alternateLink(item.atom?.links),
    base: nestedBase(item.xml?.base, feedBase),
    title: rssText(item.title ?? item.dc?.titles?.[0]) ?? atomText(item.atom?.title) ?? mediaTitle(item),
    published: item.pubDate ?? firstDate(item),
    updated: item.atom?.updated ?? item.dcterms?.modified?.[0],
    summary: rssText(item.description ?? item.dc?.descriptions?.[0] ?? itunesSummary(item)),
    content: rssText(item.content?.encoded) ?? atomText(item.atom?.content),
    authors: rssAuthors(item),
    enclosure: item.enclosures?.[0] ?? atomEnclosure(item),
    images: mediaImages(item.media, item.itunes?.image),
  };
}

function rdfEntry(item: RdfItem, feedBase: string | null): EntryFields {
  return {
    guid: item.rdf?.about,
    guidIsLink: true,
    link: item.link ?? alternateLink(item.atom?.links),
    base: nestedBase(item.xml?.base, feedBase),
    title: rssText(item.title ?? item.dc?.titles?.[0]),
    published: firstDate(item),
    updated: item.atom?.updated ?? item.dcterms?.modified?.[0],
    summary: rssText(item.description ?? item.dc?.descriptions?.[0]),
    content: rssText(item.content?.encoded) ?? atomText(item.atom?.content),
    authors: item.dc?.creators ?? personNames(item.atom?.authors) ?? [],
    enclosure: atomEnclosure(item),
    images: mediaImages(item.media),
  };
}

/** The publication date the modules carry when the core element is missing (RDF has none of its own). */
function firstDate(item: RssItem | RdfItem): string | undefined {
  return (
    item.dc?.dates?.[0] ?? item.dcterms?.issued?.[0] ?? item.dcterms?.created?.[0] ?? item.atom?.published
  );
}

/** Media RSS's title, for an item without its own: "plain" unless it says "html". */
function mediaTitle(item: RssItem): Markup | undefined {
  const title = item.media?.title;
  if (title?.value === undefined) return undefined;
  return { type: title.type?.trim().toLowerCase() === 'html' ? 'html' : 'text', value: title.value };
}

/** Apple no longer reads itunes:summary, but older podcast feeds still carry it as their only description. */
function itunesSummary(item: RssItem): string | undefined {
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  return item.itunes?.summary;
}

/** The first source that names anyone: <author>, dc:creator, atom:author, itunes:author. */
function rssAuthors(item: RssItem): string[] {
  const core = personNames(item.authors);
  if (core !== undefined) return core;
  const itunes = item.itunes?.author;
  return item.dc?.creators ?? personNames(item.atom?.authors) ?? (itunes === undefined ? [] : [itunes]);
}

function atomEnclosure(item: RssItem | RdfItem): EnclosureFields | undefined {
  const link = enclosureLink(item.atom?.links);
  return link === undefined ? undefined : { url: link.href, type: link.type, length: link.length };
}
