import { type DigestAction, digestOfActionToken } from '../digest/actionTokens.js';
import { isTidingsError } from '../errors.js';
import {
  MUTE_MS,
  type PerDigest,
  type PerDigestChoice,
  fewer,
  more,
  mutedAt,
  perDigestColumn,
} from '../lib/digestShare.js';
import { checkItem, enqueue } from '../queue/enqueue.js';
import { zoneOrUtc } from '../digest/zone.js';
import { checkUrl } from '../queue/url.js';
import { accountById, lockQueue } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { type ActionItem, digestFeedOfAction, digestItemOfAction } from '../store/digestActionTokens.js';
import { transaction } from '../store/precompiled.js';
import { deleteQueueItems, queueItemByKey } from '../store/queueItems.js';
import { subscriptionOfFeed, updateSubscriptionShare } from '../store/subscriptions.js';
import { type AccountId, grantAccount } from './authorize.js';
import { type DigestShare, shareOf } from './digestShare.js';

/**
 * The actions of a digest's private links (digest/actionTokens.ts), as the account sees them: keep an item
 * for tomorrow (queued again as the reader's own link), fewer or more from a feed (one step of
 * lib/digestShare.ts), mute a feed for a week, unmute it. A token authorises exactly these, on the items of
 * its digest and their feeds; each can be undone from its page. The action page uses nothing else.
 */

/** What a presented action token opens: an account and one of its digests. */
export interface ActionReader {
  accountId: AccountId;
  digestId: number;
}

/**
 * The account and digest a presented action token opens at `now`; null for anything else (an expired
 * token's, a disabled account's too).
 */
export async function digestActionReader(
  store: Store,
  presented: string,
  now: Date,
): Promise<ActionReader | null> {
  const found = await digestOfActionToken(store.db, presented, now);
  return found === null ? null : { accountId: grantAccount(found.accountId), digestId: found.digestId };
}

/**
 * The zone the account reads times in (its digests' and its e-mails') and the language it reads in (null:
 * the operator's default), for the action's page: the token names the account, so the page is in its
 * language whatever browser opens the link.
 */
export async function readerSettings(
  store: Store,
  accountId: AccountId,
): Promise<{ zone: string; language: string | null }> {
  const account = await accountById(store.db, accountId);
  return { zone: zoneOrUtc(account?.timezone ?? 'UTC'), language: account?.language ?? null };
}

/**
 * What an action's page says it will do (or that it cannot: the feed is no longer followed). A share's
 * `mutedUntil` is null when the feed is not muted now.
 */
export type ActionPreview =
  | { kind: 'keep'; title: string; url: string; queued: boolean }
  | { kind: 'fewer' | 'more'; feedName: string; share: DigestShare; next: PerDigest }
  | { kind: 'mute'; feedName: string; share: DigestShare; until: string }
  | { kind: 'unmute'; feedName: string; share: DigestShare }
  | { kind: 'unfollowed'; feedName: string };

/**
 * How to undo what an action did: the page's Undo button sends it back. An unmute's undo mutes the feed
 * again until the time it was muted until (`remute`).
 */
export type Undo =
  | { kind: 'keep'; queueItemId: number }
  | { kind: 'share'; previous: PerDigestChoice }
  | { kind: 'unmute' }
  | { kind: 'remute'; until: string };

/** What an action did, and how to undo it (null: nothing changed, nothing to undo). */
export type ActionDone =
  | { kind: 'keep'; title: string; url: string; added: boolean; undo: Undo | null }
  | { kind: 'fewer' | 'more' | 'mute' | 'unmute'; feedName: string; share: DigestShare; undo: Undo | null }
  | { kind: 'unfollowed'; feedName: string };

/** What the page describes an action with; null when the item or feed is not one of the digest's. */
export async function describeAction(
  store: Store,
  reader: ActionReader,
  action: DigestAction,
  now: Date,
): Promise<ActionPreview | null> {
  if (action.kind === 'keep') {
    const item = await itemOf(store, reader, action.itemId);
    if (item === null) return null;
    const waiting = await queueItemByKey(store.db, reader.accountId, keyOf(item.url));
    return { kind: 'keep', title: item.title, url: item.url, queued: waiting !== null };
  }
  const feed = await feedOf(store, reader, action.feedId);
  if (feed === null) return null;
  if (feed.subscription === null) return { kind: 'unfollowed', feedName: feed.name };
  const share = shareOf(feed.subscription);
  if (action.kind === 'mute') {
    const until = new Date(now.getTime() + MUTE_MS).toISOString();
    return { kind: 'mute', feedName: feed.name, share: mutedShare(share, now), until };
  }
  if (action.kind === 'unmute') return { kind: 'unmute', feedName: feed.name, share: mutedShare(share, now) };
  const next = action.kind === 'fewer' ? fewer(share.perDigest) : more(share.perDigest);
  return { kind: action.kind, feedName: feed.name, share: mutedShare(share, now), next };
}

/**
 * Does it: keep queues the item as the reader's own link (a link already waiting stays as it is); fewer
 * and more move the feed's share one step; mute sets it muted for a week from `now`; unmute ends a mute
 * (a feed not muted stays as it is, with nothing to undo). Null when the item or feed is not the digest's.
 * A full queue is refused with its TidingsError (queue_full), nothing written.
 */
export async function performAction(
  store: Store,
  reader: ActionReader,
  action: DigestAction,
  options: { now: Date; queueLimit: number },
): Promise<ActionDone | null> {
  if (action.kind === 'keep') {
    const item = await itemOf(store, reader, action.itemId);
    return item === null ? null : keep(store, reader.accountId, item, options.queueLimit);
  }
  const feed = await feedOf(store, reader, action.feedId);
  if (feed === null) return null;
  let sub = feed.subscription;
  if (sub === null) return { kind: 'unfollowed', feedName: feed.name };
  if (action.kind === 'mute') {
    const until = new Date(options.now.getTime() + MUTE_MS).toISOString();
    const row = await updateSubscriptionShare(store.db, reader.accountId, sub.id, { mutedUntil: until });
    if (row === null) return { kind: 'unfollowed', feedName: feed.name };
    return { kind: 'mute', feedName: feed.name, share: shareOf(row), undo: { kind: 'unmute' } };
  }
  if (action.kind === 'unmute') {
    const until = sub.muted_until;
    if (until === null || !mutedAt(until, options.now)) {
      return {
        kind: 'unmute',
        feedName: feed.name,
        share: mutedShare(shareOf(sub), options.now),
        undo: null,
      };
    }
    const row = await updateSubscriptionShare(store.db, reader.accountId, sub.id, { mutedUntil: null });
    if (row === null) return { kind: 'unfollowed', feedName: feed.name };
    return { kind: 'unmute', feedName: feed.name, share: shareOf(row), undo: { kind: 'remute', until } };
  }
  // One step from the share as it is when written: the write names the value it steps from, and when
  // another change came between (a second click), the share is read again and the step taken from there.
  for (let attempt = 1; ; attempt++) {
    const before = shareOf(sub);
    const next = action.kind === 'fewer' ? fewer(before.perDigest) : more(before.perDigest);
    const changed = next !== before.perDigest || before.perDigestDefault;
    if (!changed) {
      return { kind: action.kind, feedName: feed.name, share: mutedShare(before, options.now), undo: null };
    }
    const row = await updateSubscriptionShare(
      store.db,
      reader.accountId,
      sub.id,
      { perDigest: perDigestColumn(next) },
      { ifPerDigest: sub.per_digest },
    );
    if (row !== null) {
      return {
        kind: action.kind,
        feedName: feed.name,
        share: mutedShare(shareOf(row), options.now),
        undo: { kind: 'share', previous: before.perDigestChoice },
      };
    }
    sub = await subscriptionOfFeed(store.db, reader.accountId, action.feedId);
    if (sub === null) return { kind: 'unfollowed', feedName: feed.name };
    // Each round another click's write went through: as many rounds as clicks at once, never endless.
    if (attempt >= MAX_STEP_ROUNDS) throw new Error('the feed’s share kept changing while it was stepped');
  }
}

/** Rounds of a step's compare-and-set before giving up (a page answers 500 and the click can be repeated). */
const MAX_STEP_ROUNDS = 20;

/**
 * Undoes what performAction did: takes the kept link out of the queue if it is still waiting (false: it
 * has gone into a digest, or was removed), puts the feed's share back, unmutes it, or mutes it again until
 * the time it was muted until (false once that time has passed; never later than a week from `now`, the
 * longest mute there is). Null when the item or feed is not the digest's, or the undo is not this action's.
 */
export async function undoAction(
  store: Store,
  reader: ActionReader,
  action: DigestAction,
  undo: Undo,
  now: Date,
): Promise<{ undone: boolean; preview: ActionPreview } | null> {
  if (action.kind === 'keep') {
    const item = await itemOf(store, reader, action.itemId);
    if (item === null || undo.kind !== 'keep') return null;
    const undone = await unqueue(store, reader.accountId, item, undo.queueItemId);
    const preview = await describeAction(store, reader, action, now);
    return preview === null ? null : { undone, preview };
  }
  const wanted = action.kind === 'mute' ? 'unmute' : action.kind === 'unmute' ? 'remute' : 'share';
  if (undo.kind !== wanted) return null;
  const feed = await feedOf(store, reader, action.feedId);
  if (feed === null) return null;
  let undone = false;
  const change =
    undo.kind === 'share'
      ? { perDigest: perDigestColumn(undo.previous) }
      : undo.kind === 'remute'
        ? remuteUntil(undo.until, now)
        : { mutedUntil: null };
  if (feed.subscription !== null && change !== null) {
    undone =
      (await updateSubscriptionShare(store.db, reader.accountId, feed.subscription.id, change)) !== null;
  }
  const preview = await describeAction(store, reader, action, now);
  return preview === null ? null : { undone, preview };
}

/**
 * The mute an unmute's undo puts back: until the time given, when that is still to come and no later than
 * a week from now (the form is the reader's to change: it sets no longer mute than Mute does); else null.
 */
function remuteUntil(until: string, now: Date): { mutedUntil: string } | null {
  const at = Date.parse(until);
  if (!/^\d{4}-\d\d-\d\dT/.test(until) || Number.isNaN(at)) return null;
  if (at <= now.getTime() || at > now.getTime() + MUTE_MS) return null;
  return { mutedUntil: new Date(at).toISOString() };
}

/** A share as the page shows it: a mute that has ended is none. */
const mutedShare = (share: DigestShare, now: Date): DigestShare =>
  mutedAt(share.mutedUntil, now) ? share : { ...share, mutedUntil: null };

const keyOf = (url: string): string => checkUrl(url).key;

function itemOf(store: Store, reader: ActionReader, itemId: number): Promise<ActionItem | null> {
  return digestItemOfAction(store.db, reader.accountId, reader.digestId, itemId);
}

/** A feed of the digest: its name there and the account's subscription to it (null: no longer followed). */
async function feedOf(store: Store, reader: ActionReader, feedId: number) {
  const inDigest = await digestFeedOfAction(store.db, reader.accountId, reader.digestId, feedId);
  if (inDigest === null) return null;
  const subscription = await subscriptionOfFeed(store.db, reader.accountId, feedId);
  const name = subscription?.title ?? inDigest.feedTitle ?? 'this feed';
  return { name, subscription };
}

/**
 * Queues a digest's item again as the reader's own link (source 'api'), through the queue's one way in
 * (docs/architecture.md, "Adding a new source of queue items"). A link already waiting is left as it is.
 */
async function keep(
  store: Store,
  accountId: AccountId,
  item: ActionItem,
  queueLimit: number,
): Promise<ActionDone> {
  const input = { url: item.url, title: item.title, source: 'api' as const };
  let checked;
  try {
    checked = checkItem(input);
  } catch (err) {
    // A title the queue would refuse from a person (it came from a feed): the link, under its address.
    if (!isTidingsError(err, 'title_invalid')) throw err;
    checked = checkItem({ ...input, title: undefined });
  }
  const queued = checked;
  return transaction(store.db, async (trx) => {
    const waiting = await queueItemByKey(trx, accountId, queued.urlKey);
    if (waiting !== null) {
      return { kind: 'keep', title: item.title, url: item.url, added: false, undo: null } as const;
    }
    const done = await enqueue(trx, accountId, [queued], { engine: store.engine, limit: queueLimit });
    const result = done.results[0];
    if (result === undefined) throw new Error('no answer from the queue');
    if ('error' in result) throw result.error;
    const row = await queueItemByKey(trx, accountId, queued.urlKey);
    const undo: Undo | null =
      result.outcome === 'added' && row !== null ? { kind: 'keep', queueItemId: row.id } : null;
    return { kind: 'keep', title: item.title, url: item.url, added: undo !== null, undo } as const;
  });
}

/** Takes a kept link out of the queue, if the row still waiting for its URL is the one keep added. */
async function unqueue(store: Store, accountId: AccountId, item: ActionItem, queueItemId: number) {
  const key = keyOf(item.url);
  return transaction(store.db, async (trx) => {
    // The queue's lock first, as every change to a queue: ordered against a digest build.
    if ((await lockQueue(trx, accountId)) === null) return false;
    const waiting = await queueItemByKey(trx, accountId, key);
    if (waiting?.id !== queueItemId) return false;
    return (await deleteQueueItems(trx, accountId, [queueItemId])) > 0;
  });
}
