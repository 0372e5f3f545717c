import type { RefreshDeps } from '../feeds/deps.js';
import { type OpmlImport, importOpml } from '../feeds/subscribe/import.js';
import { type OpmlList, type OpmlOutline, generateOpml } from '../feeds/subscribe/opml.js';
import { readOpmlList } from '../feeds/subscribe/opmlThread.js';
import type { AccountId } from '../lib/authorized.js';
import type { Store } from '../store/db.js';
import { lastOpmlImport } from '../store/opmlImports.js';
import { listSubscriptions } from './subscriptions.js';

/**
 * The feeds of an OPML file someone uploaded or named, read off the main thread, with the outlines skipped
 * for want of a feed address. Throws TidingsError: invalid_input for a file that is not readable OPML,
 * limit_reached for one that lists more feeds than one import may (TIDINGS_MAX_OPML_OUTLINES).
 */
export const readSubscriptionList = (
  deps: Pick<RefreshDeps, 'maxOpmlOutlines'>,
  file: Uint8Array,
): Promise<OpmlList> => readOpmlList(file, deps.maxOpmlOutlines);

/**
 * Subscribes the account to every feed of a read OPML file (readSubscriptionList, or its outlines alone),
 * titles and folders kept: no discovery and no fetch now, the poller fetches the new feeds. A refused feed
 * is reported, the rest go on; a file past a limit (TIDINGS_MAX_OPML_OUTLINES, TIDINGS_MAX_SUBSCRIPTIONS)
 * is refused whole with TidingsError limit_reached. Takes turns with other requests as it goes, and is
 * recorded as it goes, so that one cut short says so (see importOpml, interruptedImport).
 */
export const importSubscriptions = (
  deps: RefreshDeps,
  accountId: AccountId,
  list: OpmlList | readonly OpmlOutline[],
): Promise<OpmlImport> =>
  'outlines' in list
    ? importOpml(deps, accountId, list.outlines, list.withoutUrl)
    : importOpml(deps, accountId, list);

/** An import left 'running' this long after its last batch is no longer running: it was cut short. */
export const IMPORT_SILENT_MS = 60_000;

/** An import of the account that was cut short: how many of the file's feeds it handled, and when. */
export interface InterruptedImport {
  done: number;
  listed: number;
  startedAt: string;
}

/**
 * The account's last OPML import when it was cut short (the process stopped before it ended: nothing has
 * advanced it for IMPORT_SILENT_MS); null when it finished, is still going, or there was none.
 */
export async function interruptedImport(
  store: Store,
  accountId: AccountId,
  now: Date = new Date(),
): Promise<InterruptedImport | null> {
  const last = await lastOpmlImport(store.db, accountId);
  if (last === null || last.state !== 'running') return null;
  if (Date.parse(last.updated_at) > now.getTime() - IMPORT_SILENT_MS) return null;
  return { done: last.done, listed: last.listed, startedAt: last.started_at };
}

/** The account's subscriptions as an OPML 2.0 document; null when the account is gone. */
export async function exportSubscriptions(store: Store, accountId: AccountId): Promise<string | null> {
  const list = await listSubscriptions(store, accountId);
  if (list === null) return null;
  // A newsletter's sender (src/newsletters/) is no feed another reader could follow.
  const feeds = list.subscriptions
    .filter((s) => s.status !== 'newsletter')
    .map((s) => ({
      url: s.url,
      title: s.title,
      siteUrl: s.siteUrl,
      folder: s.folder,
    }));
  return generateOpml(feeds, { title: `Tidings subscriptions of ${list.accountName}` });
}
