import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { InboundConfig } from '../config.js';
import { checkItem, enqueue } from '../queue/enqueue.js';
import { lockQueues } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { newsletterFeed } from '../store/feeds.js';
import { accountsByNewsletterTokens } from '../store/newsletterAddresses.js';
import {
  hasNewsletterMessage,
  insertNewsletterMessage,
  newsletterMessagesSince,
} from '../store/newsletterMessages.js';
import { recordSenderMessage } from '../store/newsletterSenders.js';
import { createNewsletterPage, setPageUrl } from '../store/pages.js';
import { transaction } from '../store/precompiled.js';
import { setQueueItemPage } from '../store/queueItems.js';
import type { Database } from '../store/schema.js';
import type { InboundVia } from '../store/schemaNewsletters.js';
import { createSubscription } from '../store/subscriptions.js';
import { tokenOf } from './address.js';
import { noteStored } from './stored.js';
import type { ParsedMessage, ParseResult } from './parse.js';
import { parseInThread } from './parseThread.js';

/*
 * The one pipeline every way in hands a raw message to (issue 34): HTTP (http/inbound.ts), SMTP and IMAP
 * alike. A message is checked for size, its recipients found, parsed in a thread (parseThread.ts), refused
 * when Tidings sent it, then stored for each account it is addressed to, each in a transaction of its own:
 * the sender's feed and subscription (the share, priority and mute of a feed), the sender's record, the
 * body as a page already read, the queue item (source 'newsletter', through checkItem and enqueue) and the
 * message's record, which makes it once per account whatever way and however often it comes. A caller
 * acknowledges the message (SMTP 250, IMAP flag, HTTP 202) only once ingestMessage resolved: by then every
 * account's transaction has committed.
 */

export type { InboundVia } from '../store/schemaNewsletters.js';

/** What ingesting needs. */
export interface NewsletterDeps {
  store: Store;
  log: Logger;
  /** Public base URL of the instance (TIDINGS_BASE_URL): an item's link opens the newsletter there. */
  baseUrl: string;
  inbound: Pick<InboundConfig, 'domain' | 'maxBytes' | 'dailyLimit'>;
  /** The queue's limit (TIDINGS_QUEUE_LIMIT). */
  queueLimit: number;
  /** The clock; the system's by default (the daily limit is counted on it). */
  now?: () => Date;
  /** How a message is parsed: in a thread (parseThread.ts) unless a test says otherwise. */
  parse?: (raw: Uint8Array) => Promise<ParseResult>;
}

/** How a message came, and to whom: SMTP's RCPT TO addresses; none (IMAP, HTTP) reads the message's own. */
export interface Envelope {
  /** The envelope's recipients; empty: To, Cc, Delivered-To and X-Original-To are read instead. */
  recipients: readonly string[];
  via: InboundVia;
}

/** What came of a message for one account it was addressed to. */
export type AccountOutcome = 'stored' | 'duplicate' | 'over-daily-limit' | 'queue-full';

/**
 * What came of a message: `stored` for at least one account; else `duplicate` (every account had it
 * already); else why it was refused: `no-such-recipient` (no address of an account among its recipients),
 * `too-large` (over TIDINGS_INBOUND_MAX_BYTES), `malformed` (it cannot be read: `reason` says why),
 * `our-own-mail` (Tidings sent it), `over-daily-limit` (TIDINGS_INBOUND_DAILY_LIMIT in 24 hours; try again
 * later), `queue-full` (the queue holds TIDINGS_QUEUE_LIMIT items; try again after the next digest).
 */
export type IngestOutcome =
  | 'stored'
  | 'duplicate'
  | 'no-such-recipient'
  | 'too-large'
  | 'malformed'
  | 'our-own-mail'
  | 'over-daily-limit'
  | 'queue-full';

export interface IngestResult {
  outcome: IngestOutcome;
  /** Why, in a sentence for a person (a log, an error answer). */
  reason: string;
  /** Each account the message was for, in id order, with what came of it; empty when refused before. */
  accounts: { accountId: number; outcome: AccountOutcome }[];
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The account of an inbound address (SMTP's RCPT TO check); null for any other address. One look-up. */
export async function accountForAddress(
  deps: Pick<NewsletterDeps, 'store' | 'inbound'>,
  address: string,
): Promise<number | null> {
  return (await accountsForAddresses(deps, [address]))[0] ?? null;
}

/** The distinct accounts these addresses belong to, in id order. */
async function accountsForAddresses(
  deps: Pick<NewsletterDeps, 'store' | 'inbound'>,
  addresses: readonly string[],
): Promise<number[]> {
  const tokens = [...new Set(addresses.flatMap((a) => tokenOf(a, deps.inbound.domain) ?? []))];
  const found = await accountsByNewsletterTokens(deps.store.db, tokens);
  return [...new Set(found.values())].sort((a, b) => a - b);
}

/**
 * Whether the account took in its TIDINGS_INBOUND_DAILY_LIMIT messages in the last 24 hours already: SMTP
 * asks at RCPT TO, before the message is sent (the check that holds is the one in the account's
 * transaction, below).
 */
export async function overDailyLimit(
  deps: Pick<NewsletterDeps, 'store' | 'inbound' | 'now'>,
  accountId: number,
): Promise<boolean> {
  const now = (deps.now ?? (() => new Date()))();
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  return (await newsletterMessagesSince(deps.store.db, accountId, since)) >= deps.inbound.dailyLimit;
}

const refused = (outcome: IngestOutcome, reason: string): IngestResult => ({ outcome, reason, accounts: [] });

/** Takes one raw message in; see IngestOutcome. Rejects only when the database (or a thread) fails. */
export async function ingestMessage(
  deps: NewsletterDeps,
  raw: Uint8Array,
  envelope: Envelope,
): Promise<IngestResult> {
  const { maxBytes } = deps.inbound;
  if (raw.byteLength > maxBytes) {
    return refused('too-large', `the message is larger than ${maxBytes.toLocaleString('en')} bytes`);
  }
  const noAccount = (): IngestResult =>
    refused('no-such-recipient', 'no recipient of the message is an inbound address of an account');
  let accounts =
    envelope.recipients.length === 0 ? [] : await accountsForAddresses(deps, envelope.recipients);
  if (envelope.recipients.length > 0 && accounts.length === 0) return noAccount();
  const parsed = await (deps.parse ?? parseInThread)(raw);
  if ('malformed' in parsed) return refused('malformed', parsed.malformed);
  const message = parsed.message;
  if (message.ours) return refused('our-own-mail', 'Tidings sent this message; it is not taken in again');
  if (envelope.recipients.length === 0) accounts = await accountsForAddresses(deps, message.recipients);
  if (accounts.length === 0) return noAccount();
  const done: IngestResult['accounts'] = [];
  for (const accountId of accounts) {
    const outcome = await storeFor(deps, accountId, message, envelope.via, raw.byteLength);
    if (outcome !== null) done.push({ accountId, outcome });
  }
  if (done.length === 0) return noAccount();
  const outcome = overall(done.map((d) => d.outcome));
  if (outcome === 'stored') noteStored(deps.store); // a first message from a sender is forwarded at once
  deps.log.info({ via: envelope.via, outcome, accounts: done, bytes: raw.byteLength }, 'inbound message');
  return { outcome, reason: REASONS[outcome](deps), accounts: done };
}

const REASONS: Record<AccountOutcome, (deps: NewsletterDeps) => string> = {
  stored: () => 'the message was taken in',
  duplicate: () => 'the message was taken in before',
  'over-daily-limit': (deps) =>
    `the account took in ${deps.inbound.dailyLimit} messages in the last 24 hours, its limit; try again later`,
  'queue-full': (deps) =>
    `the account's queue holds ${deps.queueLimit} items, its limit; it empties with the next digest`,
};

function overall(outcomes: readonly AccountOutcome[]): AccountOutcome {
  for (const o of ['stored', 'duplicate', 'over-daily-limit', 'queue-full'] as const)
    if (outcomes.includes(o)) return o;
  return 'duplicate';
}

/** Thrown inside an account's transaction to roll it back with an outcome. */
class Refusal extends Error {
  constructor(readonly outcome: AccountOutcome) {
    super(outcome);
  }
}

/** Stores the message for one account in one transaction; null when the account is gone. */
async function storeFor(
  deps: NewsletterDeps,
  accountId: number,
  message: ParsedMessage,
  via: InboundVia,
  byteLength: number,
): Promise<AccountOutcome | null> {
  const now = (deps.now ?? (() => new Date()))();
  try {
    return await transaction(deps.store.db, (trx) =>
      store(deps, trx, accountId, message, { via, byteLength, now }),
    );
  } catch (err) {
    if (err instanceof Refusal) return err.outcome;
    throw err;
  }
}

async function store(
  deps: NewsletterDeps,
  trx: Kysely<Database>,
  accountId: number,
  m: ParsedMessage,
  at: { via: InboundVia; byteLength: number; now: Date },
): Promise<AccountOutcome | null> {
  const { engine } = deps.store;
  // The account's queue lock first, as every queue writer takes it: the checks below hold until commit.
  const locked = await lockQueues(trx, engine, [{ accountId, changes: 0 }]);
  if (!locked.has(accountId)) return null;
  if (await hasNewsletterMessage(trx, accountId, m.dedupeKey)) return 'duplicate';
  const since = new Date(at.now.getTime() - DAY_MS).toISOString();
  if ((await newsletterMessagesSince(trx, accountId, since)) >= deps.inbound.dailyLimit) {
    return 'over-daily-limit';
  }
  const stamp = at.now.toISOString();
  const name = m.from.name ?? m.from.address;
  const feedId = await newsletterFeed(trx, { url: `mailto:${m.from.address}`, title: name, at: stamp });
  await createSubscription(trx, accountId, { feedId, at: stamp });
  const sender = await recordSenderMessage(trx, accountId, {
    address: m.from.address,
    name: m.from.name,
    feedId,
    listUnsubscribe: m.listUnsubscribe,
    listUnsubscribePost: m.listUnsubscribePost,
    at: stamp,
  });
  const title = m.subject === '' ? '(no subject)' : m.subject;
  const pageId = await createNewsletterPage(trx, {
    key: `newsletter:${accountId}:${m.dedupeKey}`,
    url: `newsletter:${accountId}:${m.dedupeKey}`,
    webVersion: m.body.webVersion,
    title,
    description: m.body.summary,
    siteName: name,
    publishedAt: m.date,
    html: m.body.html,
    text: m.body.text,
    wordCount: m.body.wordCount,
    readingMinutes: m.body.readingMinutes,
    byteLength: at.byteLength,
    at: stamp,
  });
  // The item's link opens the newsletter in the reading view (http/web/pages/item.ts).
  const url = `${deps.baseUrl.replace(/\/+$/, '')}/items/${pageId}`;
  await setPageUrl(trx, pageId, url);
  const item = checkItem({
    url,
    title,
    source: 'newsletter',
    feedId,
    summary: m.body.summary,
    publishedAt: m.date,
    imageUrl: null,
  });
  const { results } = await enqueue(trx, accountId, [item], { engine, limit: deps.queueLimit });
  const result = results[0];
  if (result === undefined || 'error' in result) {
    if (result?.error.kind === 'account_gone') return null;
    throw new Refusal('queue-full');
  }
  await setQueueItemPage(trx, accountId, item.urlKey, pageId);
  const id = await insertNewsletterMessage(trx, accountId, {
    senderId: sender.id,
    dedupeKey: m.dedupeKey,
    messageId: m.messageId,
    subject: m.subject,
    publishedAt: m.date,
    receivedAt: stamp,
    via: at.via,
    byteLength: at.byteLength,
    pageId,
    attachments: m.attachments,
    firstFromSender: sender.first,
  });
  if (id === null) throw new Refusal('duplicate');
  return 'stored';
}
