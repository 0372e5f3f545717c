import { TidingsError } from '../errors.js';
import type { AccountId } from '../lib/authorized.js';
import { mutedAt } from '../lib/digestShare.js';
import { addressOf, newToken } from '../newsletters/address.js';
import { type UnsubscribeKind, unsubscribeKind } from '../newsletters/unsubscribe.js';
import { accountById } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { createNewsletterToken, replaceNewsletterToken } from '../store/newsletterAddresses.js';
import { type SenderView, sendersOfAccount } from '../store/newsletterSenders.js';

/**
 * An account's newsletters (issue 34), for the CLI (`tidings newsletters …`) and the web alike: its inbound
 * address, made at the first ask and replaced by a rotation, and the senders it gets newsletters from.
 * Errors are TidingsError: invalid_input when no inbound domain is configured, not_found for an account
 * that is gone.
 */

/** A sender as `newsletters list` shows it. */
export interface NewsletterSender {
  /** The subscription that tunes it (the Feeds page, `feed …`); null once it was removed. */
  id: number | null;
  /** The reader's name for it, else the From display name, else the address. */
  name: string;
  address: string;
  messages: number;
  lastAt: string;
  unsubscribe: UnsubscribeKind;
  muted: boolean;
}

/**
 * The account's inbound address (TOKEN@TIDINGS_INBOUND_DOMAIN), made now when it has none; with `rotate`,
 * a new one that replaces it: mail to the old one is refused from then on.
 */
export async function newsletterAddress(
  store: Store,
  accountId: AccountId,
  options: { domain: string | null; rotate?: boolean; now?: Date },
): Promise<string> {
  const { domain } = options;
  if (domain === null) {
    throw new TidingsError(
      'invalid_input',
      'no inbound domain is configured: set TIDINGS_INBOUND_DOMAIN to the domain newsletters are sent to',
    );
  }
  if ((await accountById(store.db, accountId)) === null)
    throw new TidingsError('not_found', `no account ${accountId}`);
  const at = (options.now ?? new Date()).toISOString();
  if (options.rotate === true) {
    const token = newToken();
    await replaceNewsletterToken(store.db, accountId, token, at);
    return addressOf(token, domain);
  }
  return addressOf(await createNewsletterToken(store.db, accountId, newToken(), at), domain);
}

/** The senders the account gets newsletters from, the latest first. */
export async function newsletterSenders(
  store: Store,
  accountId: AccountId,
  now: Date = new Date(),
): Promise<NewsletterSender[]> {
  if ((await accountById(store.db, accountId)) === null)
    throw new TidingsError('not_found', `no account ${accountId}`);
  return (await sendersOfAccount(store.db, accountId)).map((s) => senderOf(s, now));
}

/** A sender's row as `newsletters list` shows it: exactly these fields, in this order. */
export const senderOf = (s: SenderView, now: Date): NewsletterSender => ({
  id: s.subscriptionId,
  name: s.name,
  address: s.address,
  messages: s.messages,
  lastAt: s.lastAt,
  unsubscribe: unsubscribeKind(s.listUnsubscribe, s.listUnsubscribePost),
  muted: s.mutedUntil !== null && mutedAt(s.mutedUntil, now),
});
