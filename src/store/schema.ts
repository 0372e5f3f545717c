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
}
