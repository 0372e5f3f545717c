import { TidingsError } from '../errors.js';
import type { AccountId } from '../lib/authorized.js';
import { MUTED_FOR_GOOD, type PerDigest, type Priority, perDigestOf } from '../lib/digestShare.js';
import { type LeaveDeps, type LeaveResult, leaveSender, linkToOpen } from '../newsletters/leave.js';
import { accountById } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import {
  type NewSenderNotice,
  dismissNewSenderNotice,
  newSenderNotices,
} from '../store/newsletterMessages.js';
import { recordUnsubscribed, senderOfSubscription, sendersOfAccount } from '../store/newsletterSenders.js';
import { setDigestShare } from './digestShare.js';
import { type NewsletterSender, newsletterAddress, senderOf } from './newsletters.js';

/**
 * The Newsletters page's and `tidings newsletters unsubscribe`'s side of an account's newsletters (issue
 * 34, points 1, 5 and 6): the senders with their share of a digest, the "New sender" notices of first
 * messages (a confirmation, usually) until dismissed or NOTICE_DAYS passed, and unsubscribing.
 */

export type { LeaveResult } from '../newsletters/leave.js';
export type { NewSenderNotice } from '../store/newsletterMessages.js';

/** How long a first message's notice stays at the top of the Newsletters page unless dismissed. */
export const NOTICE_DAYS = 3;
const NOTICES_SHOWN = 10;

/** A sender as the Newsletters page shows it. */
export interface SenderDetail extends NewsletterSender {
  /** Its subscription's share of a digest (the default when it has none). */
  perDigest: PerDigest;
  perDigestDefault: boolean;
  priority: Priority;
  mutedUntil: string | null;
  /** When the reader last unsubscribed through Tidings, and how. */
  unsubscribedAt: string | null;
  unsubscribedHow: 'one-click' | 'mailto' | 'link' | null;
  /** The address a `link` unsubscribe hands over (its http(s) link, else its mailto); null when none. */
  unsubscribeLink: string | null;
}

export interface NewslettersView {
  /** The account's inbound address; null when no inbound domain is configured. */
  address: string | null;
  senders: SenderDetail[];
  notices: NewSenderNotice[];
  /** The account's time zone, for the times shown. */
  zone: string;
}

/** The Newsletters page's content: the address (made at the first ask), the senders, the notices. */
export async function newslettersView(
  store: Store,
  accountId: AccountId,
  options: { domain: string | null; now: Date },
): Promise<NewslettersView> {
  const account = await accountById(store.db, accountId);
  if (account === null) throw new TidingsError('not_found', `no account ${accountId}`);
  const address =
    options.domain === null ? null : await newsletterAddress(store, accountId, { domain: options.domain });
  const since = new Date(options.now.getTime() - NOTICE_DAYS * 24 * 60 * 60 * 1000).toISOString();
  const [rows, notices] = await Promise.all([
    sendersOfAccount(store.db, accountId),
    newSenderNotices(store.db, accountId, since, NOTICES_SHOWN),
  ]);
  const senders = rows.map((s) => ({
    ...senderOf(s, options.now),
    perDigest: perDigestOf(s.perDigest),
    perDigestDefault: s.perDigest === null,
    priority: s.priority ?? 'normal',
    mutedUntil: s.mutedUntil,
    unsubscribedAt: s.unsubscribedAt,
    unsubscribedHow: s.unsubscribedHow,
    unsubscribeLink: linkToOpen(s.listUnsubscribe),
  }));
  return { address, senders, notices, zone: account.timezone };
}

/** Dismisses a "New sender" notice; not_found when the account has no such notice to dismiss. */
export async function dismissNewSender(
  store: Store,
  accountId: AccountId,
  messageId: number,
  now: Date,
): Promise<void> {
  if (!(await dismissNewSenderNotice(store.db, accountId, messageId, now.toISOString()))) {
    throw new TidingsError('not_found', `account ${accountId} has no new-sender notice ${messageId}`);
  }
}

export interface UnsubscribeSenderDeps extends LeaveDeps {
  store: Store;
  now: () => Date;
}

/** What unsubscribing did, and the sender it was for. */
export interface Unsubscribed extends LeaveResult {
  sender: { id: number; name: string; address: string };
}

/**
 * Unsubscribes the account from a sender (`subscriptionId`: the id `newsletters list` prints, the sender's
 * subscription): a one-click POST, a mailto message or the link to open (newsletters/leave.ts), and the
 * sender muted until the reader unmutes it, whatever came of that. not_found for a subscription of the
 * account that is not a newsletter sender's.
 */
export async function unsubscribeSender(
  deps: UnsubscribeSenderDeps,
  accountId: AccountId,
  subscriptionId: number,
): Promise<Unsubscribed> {
  const sender = await senderOfSubscription(deps.store.db, accountId, subscriptionId);
  if (sender === null) {
    throw new TidingsError('not_found', `account ${accountId} has no newsletter sender ${subscriptionId}`);
  }
  const result = await leaveSender(deps, sender);
  await setDigestShare(deps.store, accountId, subscriptionId, { mutedUntil: MUTED_FOR_GOOD });
  if (result.how !== 'none') {
    await recordUnsubscribed(deps.store.db, accountId, sender.id, result.how, deps.now().toISOString());
  }
  return { ...result, sender: { id: subscriptionId, name: sender.name, address: sender.address } };
}
