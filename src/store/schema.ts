import type { Generated } from 'kysely';

/** Timestamps are ISO 8601 UTC strings (`2026-11-22T07:00:00.000Z`): identical on both engines and sortable. */
export type Timestamp = string;

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  email: string | null;
  timezone: string;
  /** Bumped in the same transaction as every change to the account's queue; keys the API's response cache. */
  queue_version: Generated<number>;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** Public, random part of the key, shown in listings and used to find the row. */
  prefix: string;
  /** Hex SHA-256 of the whole key. The key itself is never stored. */
  key_hash: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export type QueueSource = 'api' | 'feed';

export interface QueueItemsTable {
  id: Generated<number>;
  account_id: number;
  url: string;
  /** Normalised form of url; unique per account while the item waits in the queue. */
  url_key: string;
  title: string;
  source: QueueSource;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The feed an item came from; null for saved URLs (and when that feed was removed). */
  feed_id: number | null;
}

export type FeedStatus = 'active' | 'gone';

export interface FeedsTable {
  id: Generated<number>;
  url: string;
  title: string;
  site_url: string | null;
  etag: string | null;
  last_modified: string | null;
  /** 'gone' after a 410: no longer polled, shown to the user. */
  status: Generated<FeedStatus>;
  next_fetch_at: Timestamp;
  interval_minutes: Generated<number>;
  last_fetched_at: Timestamp | null;
  last_success_at: Timestamp | null;
  last_error: string | null;
  error_count: Generated<number>;
  /** Which worker holds the feed and until when; an expired lease is free for anyone. */
  lease_owner: string | null;
  lease_until: Timestamp | null;
  created_at: Timestamp;
}

export interface SubscriptionsTable {
  id: Generated<number>;
  account_id: number;
  feed_id: number;
  /** The reader's own name for the feed; null shows the feed's title. */
  title: string | null;
  /** The folder the reader filed the feed in (from OPML), nested titles joined with " / ". */
  folder: string | null;
  include_filter: string | null;
  exclude_filter: string | null;
  created_at: Timestamp;
}

export interface FeedItemsTable {
  id: Generated<number>;
  feed_id: number;
  /** Identity within the feed: guid, else link, else a hash of title and content. */
  item_key: string;
  url: string | null;
  title: string;
  summary: string;
  published_at: Timestamp | null;
  first_seen_at: Timestamp;
}

export interface MetaTable {
  key: string;
  value: string;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  queue_items: QueueItemsTable;
  meta: MetaTable;
  feeds: FeedsTable;
  subscriptions: SubscriptionsTable;
  feed_items: FeedItemsTable;
}
