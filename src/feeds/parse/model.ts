/** A parsed feed in Tidings' own model, the same whatever the format it was published in. */
export interface Feed {
  /** RSS 0.91–2.0 are "rss"; RSS 0.90 and 1.0, both RDF documents, are "rdf". */
  format: 'rss' | 'atom' | 'rdf' | 'json';
  /** Plain text; "" when the feed has none. */
  title: string;
  /** The site the feed belongs to (absolute http(s)), or null. */
  siteUrl: string | null;
  /** The feed's own address as it states it (Atom rel="self", JSON feed_url), or null. */
  feedUrl: string | null;
  /** How long the publisher asks readers to wait between fetches (RSS ttl, or the syndication module). */
  ttlMinutes: number | null;
  /** In document order. */
  items: FeedItem[];
  /**
   * True when the document was not well-formed XML and was read by the recovering parse (lenient.ts):
   * feedparser's "bozo". The feed is shown as read leniently, not refused.
   */
  lenient: boolean;
}

/** What each format's reader makes; parseFeed() adds whether the document had to be read leniently. */
export type FeedContent = Omit<Feed, 'lenient'>;

export interface FeedItem {
  /**
   * Stable identity within the feed: the guid / id as published, else the item's URL, else
   * "hash:" and the SHA-256 (hex) of its title and content.
   */
  id: string;
  /** The item's page (absolute http(s)): its link, or its guid / id when that is an http(s) URL; or null. */
  url: string | null;
  /** Plain text; "" when the item has none. */
  title: string;
  /**
   * When the item was published, falling back to when it was updated. Null when the feed gives no date,
   * gives one that cannot be read, or gives one more than a day after parse time (a mis-set clock
   * would otherwise pin the item on top of every digest): the caller substitutes the time it first
   * saw the item.
   */
  published: Date | null;
  /** When the item was last updated; null as for `published`, and the caller treats it the same way. */
  updated: Date | null;
  /** Plain text of the description or summary (else of the content), at most 1,000 characters. */
  summary: string;
  /** The fullest HTML body: the content, else the description or summary; null when there is neither. */
  contentHtml: string | null;
  /** Author names (or addresses when no name is given), joined with ", "; null when none is given. */
  author: string | null;
  /** The first podcast-style attachment. */
  enclosure: Enclosure | null;
  /**
   * The item's own picture (absolute http(s)): media:thumbnail, Media RSS image content, itunes:image, JSON
   * Feed image or banner_image, else an image enclosure; null when it names none.
   */
  image: string | null;
}

export interface Enclosure {
  url: string;
  type: string | null;
  /** In bytes, as the feed states it. */
  length: number | null;
}

/** Why bytes could not be read as a feed; the message is meant for the person who subscribed. */
export class FeedParseError extends Error {
  override name = 'FeedParseError';
}

/** The XML parser refused the document: the one failure the recovering parse is tried for. */
export class MalformedXmlError extends FeedParseError {}
