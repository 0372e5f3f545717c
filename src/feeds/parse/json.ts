import type { JsonFeed } from 'feedsmith';
import { type EntryFields, type Markup, type ReadContext, toFeedItem } from './entry.js';
import type { FeedContent } from './model.js';
import { foldWhitespace } from '../../lib/text.js';
import { resolveHttpUrl } from './urls.js';

type Item = JsonFeed.Item<string>;
type Author = JsonFeed.Author;

/** JSON Feed 1.0 and 1.1. Its titles and summaries are plain text; content_html is HTML. */
export function fromJson(feed: JsonFeed.Feed<string>, ctx: ReadContext): FeedContent {
  const siteUrl = resolveHttpUrl(feed.home_page_url, ctx.url);
  const base = ctx.url ?? siteUrl;
  return {
    format: 'json',
    title: foldWhitespace(feed.title ?? ''),
    siteUrl,
    feedUrl: resolveHttpUrl(feed.feed_url, base),
    ttlMinutes: null,
    items: (feed.items ?? []).map((item) => toFeedItem(jsonEntry(item, feed.authors, base), ctx.now)),
  };
}

function jsonEntry(item: Item, feedAuthors: Author[] | undefined, base: string | null): EntryFields {
  const attachment = item.attachments?.[0];
  return {
    guid: item.id,
    guidIsLink: true,
    // external_url is the page a link-blog item is about: the best link when the item has no page of its own.
    link: item.url ?? item.external_url,
    base,
    title: text(item.title),
    published: item.date_published,
    updated: item.date_modified,
    summary: text(item.summary),
    content:
      item.content_html === undefined ? text(item.content_text) : { type: 'html', value: item.content_html },
    // JSON Feed 1.1: an item without authors has the feed's.
    authors: names(item.authors) ?? names(feedAuthors) ?? [],
    enclosure: attachment && {
      url: attachment.url,
      type: attachment.mime_type,
      length: attachment.size_in_bytes,
    },
    images: [item.image, item.banner_image],
  };
}

function text(value: string | undefined): Markup | undefined {
  return value === undefined ? undefined : { type: 'text', value };
}

function names(authors: Author[] | undefined): string[] | undefined {
  const named = (authors ?? []).flatMap((a) => (a.name === undefined ? [] : [a.name]));
  return named.length === 0 ? undefined : named;
}
