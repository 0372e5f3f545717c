import type { Generated } from 'kysely';
import type { Timestamp } from './schema.js';

/* The wallabag-compatible API's clients and tokens (migration 0050; split from schema.ts by size). */

/** An app an account let in: KOReader, a wallabag app, Wallabagger. */
export interface ApiClientsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** Public: typed into the app. */
  client_id: string;
  /** Hex SHA-256 of the secret (shown once). */
  secret_hash: string;
  created_at: Timestamp;
  /** When it was last given a token; null: never. */
  last_used_at: Generated<Timestamp | null>;
}

export type ApiTokenKind = 'access' | 'refresh';

/** An OAuth token given to a client, by its hash. */
export interface ApiTokensTable {
  id: Generated<number>;
  /** api_clients.id (not the public client_id). */
  client_id: number;
  account_id: number;
  kind: ApiTokenKind;
  /** Hex SHA-256 of the token. */
  token_hash: string;
  expires_at: Timestamp;
  created_at: Timestamp;
}
