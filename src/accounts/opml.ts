import type { RefreshDeps } from '../feeds/deps.js';
import { type OpmlImport, importOpml } from '../feeds/subscribe/import.js';
import { type OpmlOutline, generateOpml } from '../feeds/subscribe/opml.js';
import { readOpml } from '../feeds/subscribe/opmlThread.js';
import type { AccountId } from '../lib/authorized.js';
import type { Store } from '../store/db.js';
import { listSubscriptions } from './subscriptions.js';

/**
 * The feeds of an OPML file someone uploaded or named, read off the main thread. Throws TidingsError:
 * invalid_input for a file that is not readable OPML, limit_reached for one that lists more feeds than
 * one import may (TIDINGS_MAX_OPML_OUTLINES).
 */
export const readSubscriptionList = (
  deps: Pick<RefreshDeps, 'maxOpmlOutlines'>,
  file: Uint8Array,
): Promise<OpmlOutline[]> => readOpml(file, deps.maxOpmlOutlines);

/**
 * Subscribes the account to every feed of a read OPML file (readSubscriptionList), titles and folders
 * kept: no discovery and no fetch now, the poller fetches the new feeds. A refused feed is reported, the
 * rest go on; a file past a limit (TIDINGS_MAX_OPML_OUTLINES, TIDINGS_MAX_SUBSCRIPTIONS) is refused whole
 * with TidingsError limit_reached. Takes turns with other requests as it goes (see importOpml).
 */
export const importSubscriptions = (
  deps: RefreshDeps,
  accountId: AccountId,
  outlines: readonly OpmlOutline[],
): Promise<OpmlImport> => importOpml(deps, accountId, outlines);

/** The account's subscriptions as an OPML 2.0 document; null when the account is gone. */
export async function exportSubscriptions(store: Store, accountId: AccountId): Promise<string | null> {
  const list = await listSubscriptions(store, accountId);
  if (list === null) return null;
  const feeds = list.subscriptions.map((s) => ({
    url: s.url,
    title: s.title,
    siteUrl: s.siteUrl,
    folder: s.folder,
  }));
  return generateOpml(feeds, { title: `Tidings subscriptions of ${list.accountName}` });
}
