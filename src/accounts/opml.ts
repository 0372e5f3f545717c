import type { RefreshDeps } from '../feeds/deps.js';
import { type OpmlOutline, generateOpml } from '../feeds/subscribe/opml.js';
import { type OpmlImport, importOpml } from '../feeds/subscribe/subscribe.js';
import type { AccountId } from '../lib/authorized.js';
import type { Store } from '../store/db.js';
import { listSubscriptions } from './subscriptions.js';

/**
 * Subscribes the account to every feed of a parsed OPML file (parseOpml), titles and folders kept: no
 * discovery and no fetch now, the poller fetches the new feeds. A refused feed is reported, the rest go on.
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
