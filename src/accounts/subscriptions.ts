import { DateTime } from 'luxon';
import { type QueuedFacts, backfillWindow } from '../i18n/sharedSentences.js';
import { zoneOrUtc } from '../digest/zone.js';
import { TidingsError, isTidingsError } from '../errors.js';
import { compileFilter } from '../feeds/filters.js';
import type { RefreshDeps } from '../feeds/deps.js';
import { DISCOVERY_DEADLINE_MS } from '../feeds/subscribe/discover.js';
import {
  type FoundFeed,
  type Subscribed,
  checkFilters,
  findFeeds,
  subscribe,
} from '../feeds/subscribe/subscribe.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../fetch/fetch.js';
import type { AccountId } from '../lib/authorized.js';
import { withoutBidiControls } from '../lib/bidi.js';
import { accountById } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { deleteOrphanFeeds } from '../store/feeds.js';
import { transaction } from '../store/precompiled.js';
import {
  type SubscriptionView,
  countSubscriptions,
  deleteSubscription,
  renameSubscription,
  setFetchOriginal,
  subscriptionById,
  subscriptionsByAccount,
  updateSubscriptionFilters,
} from '../store/subscriptions.js';

/**
 * An account's feed subscriptions, for the CLI (`tidings feed …`) and the web's Feeds page alike: each rule
 * lives here once. Errors are TidingsError: invalid_input for a filter that cannot run, source_failed when
 * no feed can be found or read at an address, not_found for a subscription the account does not have.
 */

export interface SubscriptionList {
  accountName: string;
  /** The account's time zone, for showing fetch times. */
  timezone: string;
  subscriptions: SubscriptionView[];
  /** How many feeds the account follows (more than `subscriptions` holds when a page was asked for). */
  total: number;
}

/**
 * The account's subscriptions with their feeds' status, oldest first: all of them (the CLI, the export),
 * or one page of them (the web's Feeds page); null when the account is gone.
 */
export async function listSubscriptions(
  store: Store,
  accountId: AccountId,
  page?: { offset: number; limit: number },
): Promise<SubscriptionList | null> {
  const account = await accountById(store.db, accountId);
  if (account === null) return null;
  const subscriptions = await subscriptionsByAccount(store.db, accountId, page);
  const total = page === undefined ? subscriptions.length : await countSubscriptions(store.db, accountId);
  return { accountName: account.name, timezone: account.timezone, subscriptions, total };
}

export interface FollowInput {
  /** A feed URL or a web page that links to feeds. */
  url: string;
  title?: string | undefined;
  include?: string | undefined;
  exclude?: string | undefined;
  /** Read the pages of the feed's items too ("fetch original content"). */
  fetchOriginal?: boolean | undefined;
}

/**
 * Follows the feed at a URL or behind a web page: the filters are checked, then discovery runs, then the
 * first feed found is subscribed to (the first fetch, the backfill window queued); the others the page
 * offers come back as `alternatives`.
 */
export async function followFeed(
  deps: RefreshDeps,
  accountId: AccountId,
  input: FollowInput,
): Promise<Subscribed> {
  const [first, ...rest] = await discover(deps, input);
  return follow(deps, accountId, input, first, rest);
}

export type Followed =
  | ({ kind: 'subscribed' } & Subscribed)
  /** The page offers several feeds: nothing is followed until one of them is picked. */
  | { kind: 'choice'; choices: FoundFeed[] };

/** As followFeed, but a page offering several feeds returns them to choose from, and nothing is followed. */
export async function followOrChoose(
  deps: RefreshDeps,
  accountId: AccountId,
  input: FollowInput,
): Promise<Followed> {
  const [first, ...rest] = await discover(deps, input);
  if (rest.length > 0) return { kind: 'choice', choices: [first, ...rest] };
  return { kind: 'subscribed', ...(await follow(deps, accountId, input, first, [])) };
}

async function discover(deps: RefreshDeps, input: FollowInput): Promise<[FoundFeed, ...FoundFeed[]]> {
  checkFilters(input.include, input.exclude); // before any fetch
  return findFeeds(deps, input.url);
}

async function follow(
  deps: RefreshDeps,
  accountId: AccountId,
  input: FollowInput,
  found: FoundFeed,
  alternatives: FoundFeed[],
): Promise<Subscribed> {
  // Read just now: subscribing need not find it again.
  const subscribed = await subscribe(deps, accountId, { ...input, found });
  return { ...subscribed, alternatives };
}

/**
 * What subscribing put in the queue, as facts the transports word (src/i18n/sharedSentences.ts
 * `queuedSentence`, for the CLI and the Feeds page alike): how many items of the backfill window were
 * queued, or why none was. The newest item's day in the account's zone.
 */
export function queuedFacts(
  followed: { queued: number; newestItemAt: string | null },
  options: { backfillHours: number; zone: string; now: Date },
): QueuedFacts {
  const window = backfillWindow(options.backfillHours);
  const { queued, newestItemAt } = followed;
  if (queued > 0) return { kind: 'queued', queued, window };
  if (newestItemAt === null) return { kind: 'undated' };
  const since = options.now.getTime() - options.backfillHours * 3_600_000;
  if (Date.parse(newestItemAt) >= since) return { kind: 'inWindow', window };
  const day = DateTime.fromISO(newestItemAt, { zone: 'utc' }).setZone(zoneOrUtc(options.zone));
  return { kind: 'older', newestDay: day.toFormat('yyyy-MM-dd') };
}

/** How long following a feed may take: discovery, then the first fetch, with room to spare. */
export const followTimeLimitMs = (deps: RefreshDeps): number =>
  DISCOVERY_DEADLINE_MS + (deps.fetch.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) + 15_000;

const noSuchSubscription = (accountId: AccountId, id: number): TidingsError =>
  new TidingsError('not_found', `account ${accountId} has no feed subscription ${id}`);

/** Sets the account's own name for a feed; empty: the feed's own title again. */
export async function renameFollowed(
  store: Store,
  accountId: AccountId,
  id: number,
  title: string,
): Promise<void> {
  const name = withoutBidiControls(title).trim();
  await transaction(store.db, async (trx) => {
    if (!(await renameSubscription(trx, accountId, id, name === '' ? null : name))) {
      throw noSuchSubscription(accountId, id);
    }
  });
}

export interface FiltersChange {
  /** Undefined keeps the filter as it is; empty clears it. */
  include?: string | undefined;
  exclude?: string | undefined;
}

/** Changes a subscription's include / exclude filters; returns them as stored (null: none). */
export async function changeFilters(
  store: Store,
  accountId: AccountId,
  id: number,
  change: FiltersChange,
): Promise<{ include: string | null; exclude: string | null }> {
  return transaction(store.db, async (trx) => {
    const sub = await subscriptionById(trx, accountId, id);
    if (sub === null) throw noSuchSubscription(accountId, id);
    const filters = checkFilters(change.include ?? sub.include_filter, change.exclude ?? sub.exclude_filter);
    await updateSubscriptionFilters(trx, accountId, id, filters);
    return filters;
  });
}

/** Why one filter cannot run (the refusal checkFilters would throw, its facts with it), or null when it can. */
export function filterProblem(source: string): TidingsError | null {
  try {
    compileFilter(source);
    return null;
  } catch (err) {
    if (isTidingsError(err, 'invalid_input')) return err;
    throw err;
  }
}

/** Unsubscribes; what the feed already queued stays. A feed nobody follows any more goes, with its items. */
export async function unsubscribe(store: Store, accountId: AccountId, id: number): Promise<void> {
  await transaction(store.db, async (trx) => {
    if (!(await deleteSubscription(trx, accountId, id))) throw noSuchSubscription(accountId, id);
    await deleteOrphanFeeds(trx);
  });
}

/**
 * Turns "fetch original content" on or off for a subscription: on, the page reader reads the pages of the
 * feed's items queued from now on (and those still unread in the queue), as it reads saved links.
 */
export async function changeFetchOriginal(
  store: Store,
  accountId: AccountId,
  id: number,
  on: boolean,
): Promise<void> {
  if (!(await setFetchOriginal(store.db, accountId, id, on))) throw noSuchSubscription(accountId, id);
}
