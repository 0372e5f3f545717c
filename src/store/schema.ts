import type { Generated } from 'kysely';
import type { FeedFailure } from '../errors.js';
import type {
  DigestActionTokensTable,
  DigestItemsTable,
  DigestTokensTable,
  DigestsTable,
  UnsubscribeTokensTable,
} from './schemaDigests.js';
import type {
  NewsletterAddressesTable,
  NewsletterMessagesTable,
  NewsletterSendersTable,
} from './schemaNewsletters.js';
import type { OpmlImportsTable } from './schemaOpmlImports.js';
import type {
  DigestReadingItemsTable,
  PageHostLeasesTable,
  ReadingListTable,
  ReadingTagsTable,
  ResurfaceOrder,
} from './schemaReadingList.js';
import type { ApiClientsTable, ApiTokensTable, OpdsTokensTable } from './schemaApiClients.js';

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
  /** Local send time of the digest, HH:MM (24-hour) in `timezone`. */
  digest_time: Generated<string>;
  /** The local days a digest is built on: three-letter names in week order, comma-separated ("mon,tue,…"). */
  digest_days: Generated<string>;
  /** Most items one digest takes; the rest stay queued for the next one. */
  digest_max_items: Generated<number>;
  /** 1: a day with an empty queue gets no digest; 0: it gets an empty one. */
  digest_skip_empty: Generated<number>;
  /** 1: digests are emailed to `email` (when SMTP is configured); 0: web and Atom only. */
  email_enabled: Generated<number>;
  /** The next scheduled digest, UTC; null until the digest worker first schedules the account. */
  digest_due_at: Timestamp | null;
  /** The local day (YYYY-MM-DD) of the last digest built. */
  last_digest_date: string | null;
  /** Which worker is building the account's due digest and until when (as feeds' leases). */
  digest_lease_owner: string | null;
  digest_lease_until: Timestamp | null;
  /** 1: digests and the queue page show each item's lead image as a small thumbnail; 0: no images. */
  show_images: Generated<number>;
  /** 1: links delivered in digests drop known tracking parameters (the stored URL is unchanged); 0: as saved. */
  clean_links: Generated<number>;
  /** 1: an administrator (manages accounts and invitations on the web); the first account is one. */
  is_admin: Generated<number>;
  /** When the account was disabled (no sign-in, keys refused, no digests); null while enabled. */
  disabled_at: Generated<Timestamp | null>;
  /** Digests are built but not emailed before this time ("pause for a week"); null: not paused. */
  email_paused_until: Timestamp | null;
  /** Where each digest's EPUB is mailed (Send-to-Kindle …; migration 0032); null: nowhere. */
  ereader_email: Generated<string | null>;
  /** Unread reading-list items a digest offers (0 turns it off) and in which order (migration 0031). */
  resurface_count: Generated<number>;
  resurface_order: Generated<ResurfaceOrder>;
  /** BCP 47 (src/i18n/languages.ts); null: the operator's default (migration 0065). */
  language: Generated<string | null>;
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

export type QueueSource = 'api' | 'feed' | 'newsletter';

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
  /** Plain-text summary from the feed; null for saved URLs. */
  summary: string | null;
  /** When the feed says the item was published; null for saved URLs and undated items. */
  published_at: Timestamp | null;
  /** The page read for this item (see PagesTable); null until the reader links it. */
  page_id: Generated<number | null>;
  /** A feed item's own image (media:thumbnail, JSON Feed image, an image enclosure); null for saved URLs. */
  image_url: Generated<string | null>;
}

/** 'newsletter': a newsletter's sender (src/newsletters/), never fetched (migration 0040). */
export type FeedStatus = 'active' | 'gone' | 'newsletter';

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
  /** Why, as a code (src/errors.ts FeedFailure); null on success and for errors recorded before 0076. */
  last_error_reason: FeedFailure | null;
  /** The HTTP status, for an http_status error. */
  last_error_status: number | null;
  error_count: Generated<number>;
  /** 1: the last document was not well-formed XML and was read by the recovering parse; 0 otherwise. */
  read_leniently: Generated<number>;
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
  /** When the items of the backfill window were queued for it; null until the feed's first stored fetch. */
  backfilled_at: Generated<Timestamp | null>;
  /** 1: the pages of this feed's items are read too ("fetch original content"); 0 (default): the feed's text only. */
  fetch_original: Generated<number>;
  /** Items its rules would have queued and that could not be (no link, a refused link, a full queue). */
  skipped_items: Generated<number>;
  /** Why the last skipped item was not queued, in plain words; null until one is. */
  last_skip_reason: string | null;
  last_skipped_at: Timestamp | null;
  /** How many of the feed's entries a digest shows: null the default, -1 all, 0 only "+N more" (0025). */
  per_digest: Generated<number | null>;
  /** 'high' feeds are placed first; 'low' ones are only counted unless there is room (0025). */
  priority: Generated<FeedPriority>;
  /** "Mute for a week": until then a digest only counts the feed's items; null when not muted (0025). */
  muted_until: Generated<Timestamp | null>;
}

export type FeedPriority = 'high' | 'normal' | 'low';

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
  /** The item's own image (media:thumbnail, JSON Feed image, an image enclosure), absolute http(s). */
  image_url: Generated<string | null>;
}

/**
 * Where reading a saved page stands: `pending` (due at next_attempt_at; a worker holds it while its lease
 * runs), `read` (what was extracted is stored), `failed` (given up: a permanent refusal, or the attempts ran
 * out; `error` says why in plain words). An item whose page is not `read` shows what it had.
 */
export type PageState = 'pending' | 'read' | 'failed';

/** What an answer was: an HTML page (metadata and text), a file (its type and size), or a newsletter (0040). */
export type PageKind = 'html' | 'file' | 'newsletter';

/** A saved page, read once per URL for every account that saved it (migration 0010). */
export interface PagesTable {
  id: Generated<number>;
  /** The URL fetched: the queue's normalised URL. */
  url: string;
  /** The queue's dedupe key of that URL; one page per key. */
  url_key: string;
  state: Generated<PageState>;
  /** Fetches started (counted when claimed, so a crash mid-fetch counts). */
  attempts: Generated<number>;
  next_attempt_at: Timestamp | null;
  lease_owner: string | null;
  lease_until: Timestamp | null;
  /** When the last attempt ended. */
  fetched_at: Timestamp | null;
  /** The HTTP status of the last answer; null when none came (refused, timed out). */
  http_status: number | null;
  /** Why the last attempt failed, in plain words; null after a success. */
  error: string | null;
  /** Where the redirects ended. */
  final_url: string | null;
  kind: PageKind | null;
  title: string | null;
  description: string | null;
  site_name: string | null;
  author: string | null;
  published_at: Timestamp | null;
  language: string | null;
  /** The writing direction the page declares (`<html dir>`): 'rtl' or 'ltr'; null when none (0030). */
  direction: Generated<string | null>;
  /** The page's canonical URL, kept only when it is on the same site. */
  canonical_url: string | null;
  image_url: string | null;
  image_width: number | null;
  image_height: number | null;
  image_alt: string | null;
  /** The main text as sanitised reader HTML (capped); null when there is none. */
  html: string | null;
  /** The plain text of `html`, whitespace folded: what search reads (migration 0015); null when none. */
  text: Generated<string | null>;
  word_count: Generated<number>;
  reading_minutes: Generated<number>;
  media_type: string | null;
  byte_length: number | null;
  created_at: Timestamp;
  /**
   * 1 while only reading-list items want the page: read by the paced reader, one fetch at a time per host;
   * 0: the queue's reader's (migration 0033).
   */
  paced: Generated<number>;
  /** The host (with its port) of `url`, on paced pages: what the per-host rule compares (0033). */
  host: Generated<string | null>;
}

/** A signed-in browser (see migration 0007). */
export interface WebSessionsTable {
  /** Hex SHA-256 of the session token the cookie carries. */
  id: string;
  account_id: number;
  /** The API key the browser signed in with (revoking it ends the session); null for the other methods. */
  key_id: number | null;
  /** The synchroniser token every form of this session must carry (base64url, 256 random bits). */
  csrf_token: string;
  created_at: Timestamp;
  /** The session ends then unless used before; each day of use moves it on. */
  expires_at: Timestamp;
  /** How the browser signed in (migration 0013). */
  method: Generated<SignInMethod>;
  /** The passkey the browser signed in with (deleting it ends the session); null for the other methods. */
  passkey_id: Generated<number | null>;
}

export type SignInMethod = 'key' | 'password' | 'passkey';

/** An account's password, as a scrypt hash (migration 0013). */
export interface AccountPasswordsTable {
  account_id: number;
  /** `scrypt$N$r$p$salt$hash` (base64url salt and hash): the parameters travel with the hash. */
  password_hash: string;
  updated_at: Timestamp;
}

/** A WebAuthn credential (passkey) of an account (migration 0013). */
export interface PasskeysTable {
  id: Generated<number>;
  account_id: number;
  /** The credential's id, base64url; unique across accounts. */
  credential_id: string;
  /** COSE public key bytes (blob on SQLite, bytea on PostgreSQL). */
  public_key: Buffer;
  /** The authenticator's signature counter (0 for those that keep none). */
  counter: Generated<number>;
  /** The transports the browser reported, comma-separated ('' when none). */
  transports: Generated<string>;
  /** The WebAuthn user handle (base64url), random per account, shared by its passkeys. */
  user_handle: string;
  name: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
}

/** A WebAuthn challenge waiting for its answer: single use, short-lived (migration 0013). */
export interface WebauthnChallengesTable {
  /** Hex SHA-256 of what the challenge is bound to (the purpose and the session or sign-in cookie). */
  id: string;
  /** The account adding a passkey; null for a sign-in. */
  account_id: number | null;
  /** base64url */
  challenge: string;
  /** Adding a passkey: the user handle the options offered (base64url); null for a sign-in. */
  user_handle: string | null;
  expires_at: Timestamp;
}

/** A single-use, expiring link that creates an account (migration 0014). */
export interface InvitationsTable {
  id: Generated<number>;
  /** Hex SHA-256 of the link's random token; the token itself is shown once and never stored. */
  token_hash: string;
  /** The administrator who made it. */
  created_by: number;
  /** Who it is for, in the administrator's words; shown in the list of pending invitations. */
  note: string | null;
  /** The address the new account starts with (the invited person may change it). */
  email: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  /** When it was used (then it no longer works), and the account it made. */
  used_at: Timestamp | null;
  used_by_account_id: number | null;
}

export type SearchKind = 'queue' | 'digest' | 'reading';

/**
 * One queue or digest item as search finds it (migration 0015), kept in step by triggers: the text indexed
 * is the view search_texts; SQLite indexes it in the FTS5 table search_fts (rowid = id), PostgreSQL in the
 * column tsv (not listed here: only search queries read it, through sql). Migration 0017 adds the trigram
 * index of the documents in scripts without spaces: SQLite's FTS5 table search_grams, PostgreSQL's column
 * grams (not listed either).
 */
export interface SearchDocumentsTable {
  id: Generated<number>;
  account_id: number;
  kind: SearchKind;
  /** queue_items.id or digest_items.id. */
  item_id: number;
  digest_id: number | null;
  page_id: number | null;
  /** When the item was queued (queue) or its digest built (digest). */
  created_at: Timestamp;
}

export type {
  DeliveryState,
  DigestActionTokensTable,
  DigestItemsTable,
  DigestSection,
  DigestTokensTable,
  DigestsTable,
  UnsubscribeTokensTable,
} from './schemaDigests.js';
export interface MetaTable {
  key: string;
  value: string;
}

/** Work one process does at a time (migration 0041): held by `holder` until `expires_at`. */
export interface WorkerLeasesTable {
  name: string;
  holder: string;
  expires_at: Timestamp;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  queue_items: QueueItemsTable;
  meta: MetaTable;
  feeds: FeedsTable;
  subscriptions: SubscriptionsTable;
  feed_items: FeedItemsTable;
  digests: DigestsTable;
  digest_items: DigestItemsTable;
  digest_tokens: DigestTokensTable;
  opds_tokens: OpdsTokensTable;
  unsubscribe_tokens: UnsubscribeTokensTable;
  digest_action_tokens: DigestActionTokensTable;
  web_sessions: WebSessionsTable;
  pages: PagesTable;
  account_passwords: AccountPasswordsTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  invitations: InvitationsTable;
  search_documents: SearchDocumentsTable;
  opml_imports: OpmlImportsTable;
  reading_list: ReadingListTable;
  page_host_leases: PageHostLeasesTable;
  digest_reading_items: DigestReadingItemsTable;
  newsletter_addresses: NewsletterAddressesTable;
  newsletter_senders: NewsletterSendersTable;
  newsletter_messages: NewsletterMessagesTable;
  worker_leases: WorkerLeasesTable;
  api_clients: ApiClientsTable;
  api_tokens: ApiTokensTable;
  reading_tags: ReadingTagsTable;
}
