import type { Generated } from 'kysely';
import type { QueueSource, Timestamp } from './schema.js';

/* The digests' tables (split from schema.ts by size; schema.ts re-exports them). */

/**
 * Where a digest's email stands. `pending`: to be sent at `next_attempt_at`; `sending`: a worker holds the
 * lease; `sent`; `failed`: given up (a permanent refusal, or still failing 24 h on); `not_emailed`: the
 * account has email off or no address; `no_smtp`: this instance had no SMTP configured when it was built.
 */
export type DeliveryState = 'pending' | 'sending' | 'sent' | 'failed' | 'not_emailed' | 'no_smtp';

export interface DigestsTable {
  id: Generated<number>;
  account_id: number;
  /** The scheduled day in the account's zone, YYYY-MM-DD: at most one digest per account and day. */
  local_date: string;
  created_at: Timestamp;
  item_count: number;
  /** Of those, saved through the API (counted at the build). */
  saved_count: number;
  /** The feeds the others came from (counted at the build, as the digest groups them). */
  feed_count: number;
  /** Items still waiting in the queue once this digest took its maximum. */
  remaining: number;
  delivery: DeliveryState;
  /** Delivery attempts started (counted when claimed, so a crash mid-send counts). */
  attempts: Generated<number>;
  next_attempt_at: Timestamp | null;
  last_error: string | null;
  /** The Message-ID every attempt sends: a retry is the same message to the receiving side. */
  message_id: string;
  sent_at: Timestamp | null;
  lease_owner: string | null;
  lease_until: Timestamp | null;
  /** Entries the email shows (0025); null for digests built before, which showed every item. */
  shown_count: Generated<number | null>;
  /** 1 once its items have their search documents (at the account's next search after the build), else 0. */
  search_indexed: Generated<number>;
  /** The EPUB's copy to the account's e-reader address (0032), as `delivery`; null: no copy. */
  ereader_state: Generated<DeliveryState | null>;
  ereader_attempts: Generated<number>;
  ereader_next_attempt_at: Generated<Timestamp | null>;
  ereader_error: Generated<string | null>;
  ereader_sent_at: Generated<Timestamp | null>;
  ereader_lease_owner: Generated<string | null>;
  ereader_lease_until: Generated<Timestamp | null>;
}

/** One item of a digest, as it was when it left the queue. */
export interface DigestItemsTable {
  id: Generated<number>;
  digest_id: number;
  /** 0-based, the queue's order (oldest first). */
  position: number;
  url: string;
  title: string;
  source: QueueSource;
  feed_id: number | null;
  /** The reader's name for the feed when the digest was built (subscription title, else the feed's). */
  feed_title: string | null;
  summary: string | null;
  published_at: Timestamp | null;
  /** When the item entered the queue. */
  queued_at: Timestamp;
  /** The page read for this item, when it had one as it left the queue. */
  page_id: Generated<number | null>;
  /** A feed item's own image, as it was queued. */
  image_url: Generated<string | null>;
  /** Where the digest places it (0025); null in digests built before, whose section is their source. */
  section: Generated<DigestSection | null>;
  /** 1: the email shows it (an entry, or a source on its entry's "Also in:" line); 0: only counted. */
  shown: Generated<number>;
  /** Another source of a story: the position of the story's entry in the digest; null for an entry. */
  story_of: Generated<number | null>;
  /** The earlier digest that delivered this story, when it is not new; null otherwise. */
  seen_in: Generated<number | null>;
}

/** 'newsletters': a newsletter's sender's group (migration 0040's items; a text column, no migration). */
export type DigestSection = 'saved' | 'top' | 'feed' | 'newsletters';

/**
 * The private token of an account's digest URLs (web page, Atom feed). Stored as it is, unlike API keys:
 * emails built later must carry it in their links. Read-only; replaced to revoke.
 */
export interface DigestTokensTable {
  account_id: number;
  /** 43 characters of base64url: 256 random bits. */
  token: string;
  /** Hex SHA-256 of the token: what a presented token is looked up by (then compared in constant time). */
  token_hash: string;
  /** When this token was made (first use or the last rotation). */
  created_at: Timestamp;
}

/** A private one-click unsubscribe link of one email (see migration 0016): only its hash is kept. */
export interface UnsubscribeTokensTable {
  /** Hex SHA-256 of the token (43 characters of base64url: 256 random bits). */
  token_hash: string;
  account_id: number;
  /** When the email carrying it was sent; tokens older than a year are pruned. */
  created_at: Timestamp;
}

/** The private link of one email's actions (migration 0025): only its hash is kept. */
export interface DigestActionTokensTable {
  /** Hex SHA-256 of the token (43 characters of base64url: 256 random bits). */
  token_hash: string;
  account_id: number;
  /** The digest the email carried; the actions name its items and their feeds. */
  digest_id: number;
  created_at: Timestamp;
}
