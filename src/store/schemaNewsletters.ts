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
  /** When the reader last unsubscribed through Tidings (migration 0045); null: never. */
  unsubscribed_at: Generated<Timestamp | null>;
  /** What was done then: a one-click POST, a mailto message, or the link handed over. */
  unsubscribed_how: Generated<'one-click' | 'mailto' | 'link' | null>;
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
  /* Migration 0045: the first message's forward to the account's e-mail, and the page's notice of it. */
  /** When it was forwarded; null until then (or for a message that is not a sender's first). */
  forwarded_at: Generated<Timestamp | null>;
  forward_attempts: Generated<number>;
  /** A process sends it until then; another may try once it passed. */
  forward_lease_until: Generated<Timestamp | null>;
  /** Why the last attempt failed. */
  forward_error: Generated<string | null>;
  /** When the reader dismissed the Newsletters page's "New sender" notice of it. */
  notice_dismissed_at: Generated<Timestamp | null>;
}
