import type { Generated } from 'kysely';
import type { Timestamp } from './schema.js';

/*
 * The wallabag-compatible API's clients and tokens (migration 0050), and the OPDS catalogue's private
 * links (migration 0060): the apps' ways in, split from schema.ts by size.
 */

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

/** The private link of an account's OPDS catalogue (migration 0060): only the token's hash is kept. */
export interface OpdsTokensTable {
  account_id: number;
  /** Hex SHA-256 of the token (43 characters of base64url: 256 random bits). */
  token_hash: string;
  created_at: Timestamp;
}
