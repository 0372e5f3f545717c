import type { Kysely } from 'kysely';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TidingsError } from '../../errors.js';
import { feedsByUrls, findOrCreateFeeds } from '../../store/feeds.js';
import { advanceOpmlImport, finishOpmlImport, startOpmlImport } from '../../store/opmlImports.js';
import { transaction } from '../../store/precompiled.js';
import type { Engine } from '../../store/db.js';
import type { Database } from '../../store/schema.js';
import {
  type SubscriptionRow,
  countSubscriptions,
  createSubscriptions,
  followedFeedIds,
} from '../../store/subscriptions.js';
import { type RefreshDeps, currentTime } from '../deps.js';
import { resolveHttpUrl } from '../parse/urls.js';
import { fillSubscription } from '../queueing.js';
import { checkImportRoom, checkOutlineCount, subscriptionLimitError } from './limits.js';
import type { OpmlOutline } from './opml.js';
import { subscriptionRoom, trustedFeedUrl } from './subscribe.js';

export interface OpmlImport {
  added: number;
  /** Feeds the account already followed (or that the file lists twice). */
  known: number;
  refused: { url: string; message: string }[];
  /** Outlines of the file with no feed address (xmlUrl) and nothing inside: skipped, counted. */
  withoutUrl: number;
}

/**
 * Feeds per transaction. A batch is a few statements (its URLs looked up, its new feeds and subscriptions
 * each inserted in one), and between batches the import lets the event loop answer whatever came in
 * meanwhile. On SQLite a batch is small: better-sqlite3 answers synchronously, so a batch holds the whole
 * process (and the database's one writer) until it commits, a few milliseconds for 100 feeds; without the
 * turns an import would keep the process to itself until its last row. On PostgreSQL the process waits
 * for the database without holding anyone up, and larger batches make fewer round trips.
 */
const BATCH: Record<Engine, number> = { sqlite: 100, postgres: 500 };

/** A feed of the file, its URL checked: what a batch subscribes to. */
interface Entry {
  url: string;
  outline: OpmlOutline;
}

/**
 * Subscribes an (already authorised) account to every feed of an OPML file, titles and folders kept:
 * trusted, so no discovery and no fetch now (the poller fetches the new feeds; one Tidings has fetched
 * before fills the new subscription's backfill window at once). A feed refused for a reason the user can
 * read (not http(s), too long) is reported and the rest go on.
 *
 * Bounded before anything is written: a file listing more than `maxOpmlOutlines` feeds, or one that would
 * make the account follow more than `maxSubscriptions`, is refused whole (TidingsError limit_reached). The
 * work goes in batches of BATCH feeds, each its own transaction, taking turns with other requests.
 * Should another request take the last places meanwhile, the feeds past the limit are refused one by one.
 *
 * Visibly partial and resumable rather than all-or-nothing (docs/feeds.md): the import is recorded
 * (store/opmlImports.ts) before its first batch, and each batch advances it in its own transaction, so an
 * import cut short (the process killed) is seen as such, with how far it went; importing the same file
 * again skips the feeds followed already and finishes it.
 */
export async function importOpml(
  deps: RefreshDeps,
  accountId: number,
  outlines: readonly OpmlOutline[],
  withoutUrl = 0,
): Promise<OpmlImport> {
  checkOutlineCount(outlines.length, deps.maxOpmlOutlines);
  const result: OpmlImport = { added: 0, known: 0, refused: [], withoutUrl };
  // First the file's feeds, checked, each once, and how many the account follows already; by batches too.
  const batches: Entry[][] = [];
  const seen = new Set<string>();
  let followed = 0;
  for (const part of chunks(outlines, BATCH[deps.store.engine])) {
    await nextTurn();
    const batch: Entry[] = [];
    for (const outline of part) {
      let url: string;
      try {
        url = trustedFeedUrl(outline.url);
      } catch (err) {
        if (!(err instanceof TidingsError)) throw err;
        result.refused.push({ url: outline.url, message: err.message });
        continue;
      }
      // A feed listed twice (in two folders, say) is subscribed once.
      if (seen.has(url)) result.known++;
      else batch.push({ url, outline });
      seen.add(url);
    }
    batches.push(batch);
    followed += (await followedUrls(deps.store.db, accountId, urlsOf(batch))).size;
  }
  const listed = seen.size;
  checkImportRoom(
    await countSubscriptions(deps.store.db, accountId),
    listed - followed,
    deps.maxSubscriptions,
  );

  const entries = batches.reduce((n, batch) => n + batch.length, 0);
  await startOpmlImport(deps.store.db, accountId, entries, currentTime(deps).toISOString());
  for (const batch of batches) {
    await nextTurn();
    const done = await transaction(deps.store.db, (trx) => importBatch(deps, trx, accountId, batch));
    result.added += done.made.length;
    result.known += done.known;
    result.refused.push(...done.refused);
    for (const subscription of done.toFill) {
      await nextTurn();
      await fillSubscription(deps, subscription);
    }
  }
  await finishOpmlImport(deps.store.db, accountId, currentTime(deps).toISOString());
  return result;
}

type Made = Pick<SubscriptionRow, 'id' | 'account_id' | 'feed_id'>;

interface BatchDone {
  made: Made[];
  known: number;
  refused: OpmlImport['refused'];
  /** New subscriptions to feeds Tidings has fetched: their backfill window can be queued now. */
  toFill: Made[];
}

/** One batch, in the caller's transaction: the account's room read under its lock, then two inserts. */
async function importBatch(
  deps: RefreshDeps,
  trx: Kysely<Database>,
  accountId: number,
  batch: readonly Entry[],
): Promise<BatchDone> {
  let room = await subscriptionRoom(trx, deps.store.engine, accountId, deps.maxSubscriptions);
  const followed = await followedUrls(trx, accountId, urlsOf(batch));
  const done: BatchDone = { made: [], known: 0, refused: [], toFill: [] };
  const fresh: Entry[] = [];
  for (const entry of batch) {
    if (followed.has(entry.url)) {
      done.known++;
    } else if (room > 0) {
      room--;
      fresh.push(entry);
    } else {
      done.refused.push({ url: entry.url, message: subscriptionLimitError(deps.maxSubscriptions).message });
    }
  }
  const at = currentTime(deps).toISOString();
  const feeds = await findOrCreateFeeds(
    trx,
    fresh.map(({ url, outline }) => ({
      url,
      title: outline.title || url,
      // Only an absolute http(s) URL: an imported file is whatever another program (or person) wrote.
      siteUrl: resolveHttpUrl(outline.htmlUrl ?? undefined, null),
    })),
    at,
  );
  const byUrl = new Map(feeds.map((f) => [f.url, f]));
  const wanted = fresh.flatMap(({ url, outline }) => {
    const feed = byUrl.get(url);
    return feed === undefined
      ? []
      : [{ feedId: feed.id, title: outline.title.trim() || null, folder: outline.folder }];
  });
  done.made = await createSubscriptions(trx, accountId, wanted, at);
  done.known += fresh.length - done.made.length;
  const fetched = new Set(feeds.filter((f) => f.last_success_at !== null).map((f) => f.id));
  done.toFill = done.made.filter((s) => fetched.has(s.feed_id));
  await advanceOpmlImport(trx, accountId, batch.length, at);
  return done;
}

/**
 * Which of these feed URLs the account follows: by the feeds' URL index, then the subscriptions'
 * (account_id, feed_id) one, so each batch costs the same however many feeds the account follows.
 */
async function followedUrls(
  db: Kysely<Database>,
  accountId: number,
  urls: readonly string[],
): Promise<Set<string>> {
  const known = await feedsByUrls(db, urls);
  const followed = await followedFeedIds(
    db,
    accountId,
    known.map((f) => f.id),
  );
  return new Set(known.filter((f) => followed.has(f.id)).map((f) => f.url));
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const urlsOf = (batch: readonly Entry[]): string[] => batch.map((e) => e.url);
