import type { AtomFeed } from 'feedsmith';
import { type EntryFields, type ReadContext, plainText, toFeedItem } from './entry.js';
import { mediaImages } from './images.js';
import type { FeedContent } from './model.js';
import { alternateLink, atomText, enclosureLink, personNames, selfLink, ttlMinutes } from './namespaces.js';
import { nestedBase, resolveHttpUrl } from './urls.js';

type Entry = AtomFeed.Entry<string>;

/** Atom 1.0 (RFC 4287) and 0.3, whose issued / modified feedsmith already reads as published / updated. */
export function fromAtom(feed: AtomFeed.Feed<string>, ctx: ReadContext): FeedContent {
  const feedBase = nestedBase(feed.xml?.base, ctx.url);
  const siteUrl = resolveHttpUrl(alternateLink(feed.links), feedBase);
  const base = feedBase ?? siteUrl;
  const title = atomText(feed.title);
  return {
    format: 'atom',
    title: title === undefined ? '' : plainText(title),
    siteUrl,
    feedUrl: resolveHttpUrl(selfLink(feed.links), base),
    ttlMinutes: ttlMinutes(undefined, feed.sy),
    items: (feed.entries ?? []).map((entry) => toFeedItem(atomEntry(entry, feed, base), ctx.now)),
  };
}

function atomEntry(entry: Entry, feed: AtomFeed.Feed<string>, feedBase: string | null): EntryFields {
  const enclosure = enclosureLink(entry.links);
  return {
    guid: entry.id,
    guidIsLink: true,
    link: alternateLink(entry.links),
    base: nestedBase(entry.xml?.base, feedBase),
    title: atomText(entry.title),
    published: entry.published ?? entry.dc?.dates?.[0],
    updated: entry.updated,
    summary: atomText(entry.summary),
    // Content given by reference (src="…") has no text to show here.
    content: entry.content?.src === undefined ? atomText(entry.content) : undefined,
    // RFC 4287 §4.2.1: an entry without authors has those of its source, else those of the feed.
    authors:
      personNames(entry.authors) ?? personNames(entry.source?.authors) ?? personNames(feed.authors) ?? [],
    enclosure: enclosure && { url: enclosure.href, type: enclosure.type, length: enclosure.length },
    images: mediaImages(entry.media, entry.itunes?.image),
  };
}
