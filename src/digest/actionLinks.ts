import { actionUrl, readingActionUrl } from './actionTokens.js';
import type { DigestView } from './view.js';

/**
 * A view with the private links of its actions (issue 24): "Keep for tomorrow" on every item the view
 * knows the id of, "Fewer from this feed", "More…", "Mute for a week" (or "Unmute", for a feed muted when
 * the view was read) under every feed's group, and
 * "Archive" and "Keep for tomorrow" on every item of "From your reading list". The
 * token is one email's, from actionTokens.ts; the email's links to its web page carry it on, and the page
 * (http/digests.ts, `&action_token=`, which the logs redact) shows the same links when the token is that digest's. Without one the view
 * is as it was.
 */
export function withActionLinks(view: DigestView, baseUrl: string, token: string | null): DigestView {
  if (token === null) return view;
  // The web page opened from the email keeps its actions: its links carry the token on.
  const carry = (url: string): string => {
    const hash = url.indexOf('#');
    const [path, fragment] = hash === -1 ? [url, ''] : [url.slice(0, hash), url.slice(hash)];
    return `${path}${path.includes('?') ? '&' : '?'}action_token=${encodeURIComponent(token)}${fragment}`;
  };
  const carryOrNull = (url: string | null): string | null => (url === null ? null : carry(url));
  return {
    ...view,
    links: { ...view.links, web: carry(view.links.web) },
    page: { ...view.page, previous: carryOrNull(view.page.previous), next: carryOrNull(view.page.next) },
    resurfaced: view.resurfaced.map((r) => ({
      ...r,
      archiveHref: readingActionUrl(baseUrl, token, { kind: 'archive', readingId: r.readingId }),
      tomorrowHref: readingActionUrl(baseUrl, token, { kind: 'tomorrow', readingId: r.readingId }),
    })),
    groups: view.groups.map((g) => ({
      ...g,
      more: g.more === null ? null : { ...g.more, href: carry(g.more.href) },
      items: g.items.map((i) =>
        i.itemId === null
          ? i
          : { ...i, keepHref: actionUrl(baseUrl, token, { kind: 'keep', itemId: i.itemId }) },
      ),
      actions:
        (g.kind !== 'feed' && g.kind !== 'newsletter') || g.feedId === null
          ? null
          : {
              fewer: actionUrl(baseUrl, token, { kind: 'fewer', feedId: g.feedId }),
              more: actionUrl(baseUrl, token, { kind: 'more', feedId: g.feedId }),
              // A feed muted when the view was read offers to end it, not to mute it again.
              ...(g.muted === null
                ? { mute: actionUrl(baseUrl, token, { kind: 'mute', feedId: g.feedId }) }
                : { unmute: actionUrl(baseUrl, token, { kind: 'unmute', feedId: g.feedId }) }),
            },
    })),
  };
}
