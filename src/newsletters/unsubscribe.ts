/**
 * How a sender can be left, from the List-Unsubscribe (RFC 2369) and List-Unsubscribe-Post (RFC 8058)
 * headers of its latest message: `one-click` (an https link and `List-Unsubscribe=One-Click`: a POST
 * leaves), `mailto` (a message to an address leaves), `link` (a page to open), `none`.
 */
export type UnsubscribeKind = 'one-click' | 'mailto' | 'link' | 'none';

/** The URIs of a List-Unsubscribe header, in order: what stands between angle brackets. */
export function unsubscribeTargets(header: string | null): string[] {
  if (header === null) return [];
  return [...header.matchAll(/<\s*([^<>\s]+)\s*>/g)].flatMap((m) => (m[1] === undefined ? [] : [m[1]]));
}

export function unsubscribeKind(header: string | null, post: string | null): UnsubscribeKind {
  const targets = unsubscribeTargets(header);
  const https = targets.some((t) => /^https:\/\//i.test(t));
  if (https && post !== null && /List-Unsubscribe\s*=\s*One-Click/i.test(post)) return 'one-click';
  if (targets.some((t) => /^mailto:/i.test(t))) return 'mailto';
  if (targets.some((t) => /^https?:\/\//i.test(t))) return 'link';
  return 'none';
}
