import type { Generated } from 'kysely';
import type { Timestamp } from './schema.js';

/* The newsletters' tables (migration 0040; split from schema.ts by size: schema.ts lists them in Database). */

/** An account's inbound address: `token@TIDINGS_INBOUND_DOMAIN`. */
export interface NewsletterAddressesTable {
  account_id: number;
  /** The local part: 32 characters of lowercase base32 (160 random bits); unique. */
  token: string;
  /** When this token was made (the first `newsletters address`, or the last rotation). */
  created_at: Timestamp;
}

/** Where a newsletter came from: one row per account and From address. */
export interface NewsletterSendersTable {
  id: Generated<number>;
  account_id: number;
  /** The From address, lower-cased. */
  address: string;
  /** The From display name of the latest message; null when it had none. */
  name: string | null;
  /** The feed (status 'newsletter') whose subscription tunes the sender; null once it is gone. */
  feed_id: number | null;
  /** The latest message's List-Unsubscribe and List-Unsubscribe-Post headers, as sent (capped). */
  list_unsubscribe: string | null;
  list_unsubscribe_post: string | null;
  /** Messages taken in from it. */
  messages: Generated<number>;
  first_at: Timestamp;
  last_at: Timestamp;
}

/** How a message came in. */
export type InboundVia = 'smtp' | 'imap' | 'http';

/** One message taken in for one account. */
export interface NewsletterMessagesTable {
  id: Generated<number>;
  account_id: number;
  sender_id: number;
  /** `mid:` and the SHA-256 of the Message-ID, else `sum:` and that of sender, subject and body. */
  dedupe_key: string;
  /** The Message-ID as sent, without angle brackets (capped); null when it had none. */
  message_id: string | null;
  subject: string;
  /** The Date header; null when missing or unreadable. */
  published_at: Timestamp | null;
  received_at: Timestamp;
  via: InboundVia;
  byte_length: number;
  /** The page holding the sanitised body; null once the page was pruned (store/pages.ts deleteUnusedPages). */
  page_id: number | null;
  /** JSON array of the attachments' file names (the files are not kept); null when there were none. */
  attachments: string | null;
  /** 1 for the first message taken in from its sender (a confirmation, usually). */
  first_from_sender: Generated<number>;
}
