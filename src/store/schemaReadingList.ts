import type { Generated } from 'kysely';
import type { Timestamp } from './schema.js';

/* The reading list's table (migration 0031; split from schema.ts by size). */

export type ReadingState = 'unread' | 'archived';

/** Where an item was imported from. */
export type ReadingSource = 'pocket' | 'instapaper' | 'omnivore' | 'wallabag' | 'bookmarks' | 'app';

/** One link of an account's reading list: imported, never queued. */
export interface ReadingListTable {
  id: Generated<number>;
  account_id: number;
  url: string;
  /** The queue's dedupe key of `url` (queue/url.ts); unique per account. */
  url_key: string;
  title: string;
  state: Generated<ReadingState>;
  /** Lower-cased tags, each followed by "\n" and the whole preceded by one; '' when none. */
  tags: Generated<string>;
  /** When the reader saved it at the service it came from (the earliest when merged). */
  saved_at: Timestamp;
  /** The format of the first import that brought it. */
  source: ReadingSource;
  description: string | null;
  author: string | null;
  published_at: Timestamp | null;
  /** Readable HTML the export carried (Omnivore, Wallabag), sanitised; its plain text in `text`. */
  html: string | null;
  text: string | null;
  /**
   * The page of its URL, read in the background (articles/pacedReader.ts); null until the item is linked
   * to it, and for items that brought their html. Linked before it is read: the page's state says.
   */
  page_id: Generated<number | null>;
  /** For the digest's resurfacing: when a digest last offered it (null: never) and how many times. */
  offered_at: Generated<Timestamp | null>;
  offered_count: Generated<number>;
  /** "Keep for tomorrow" from a digest's link (migration 0034): the next digest offers it first. */
  kept_at: Generated<Timestamp | null>;
  /** SHA-1 (hex) of `url`: wallabag's hashed_url (migration 0050; written by insertReadingItems). */
  url_hash: string | null;
  /** When a wallabag client starred it (migration 0050); null: not starred. */
  starred_at: Generated<Timestamp | null>;
  /** When it was archived, by whichever path (migration 0050); null while unread. */
  archived_at: Generated<Timestamp | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The account's resurfacing settings (migration 0031): how many a digest offers and in which order. */
export type ResurfaceOrder = 'oldest' | 'random';

/**
 * A host a paced page read holds (migration 0033): one worker at a time, and for a few seconds after its
 * fetch ended, so that the reading list never asks one host twice at once or twice in a row.
 */
export interface PageHostLeasesTable {
  /** As lib/url.ts hostOf: the host name with its port. */
  host: string;
  lease_owner: string;
  lease_until: Timestamp;
}

/** A reading-list item a digest offered, in its "From your reading list" section (migration 0034). */
export interface DigestReadingItemsTable {
  digest_id: number;
  /** 0-based, the section's order. */
  position: number;
  reading_id: number;
}

/** A stable number for a tag label of an account (migration 0050): wallabag's tags have ids. */
export interface ReadingTagsTable {
  id: Generated<number>;
  account_id: number;
  /** As reading_list.tags holds it: lower-cased. */
  label: string;
}
