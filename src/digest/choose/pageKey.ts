import { cleanUrl } from '../../lib/cleanUrl.js';

/*
 * Whether two links are the same page, for one story one entry (issue 24): the same URL once cleaned of
 * tracking parameters (lib/cleanUrl.ts) and of the parameters that only say where a visitor came from
 * (STORY_PARAMETERS), with the scheme, "www.", a trailing slash and the fragment ignored. Only for
 * comparing: a delivered link keeps these parameters (cleanUrl leaves `ref` alone since on some sites it
 * chooses the page; two items of one digest that differ only by it are still one story).
 */

/** Parameters that tell where a visitor came from: dropped when two links are compared. */
export const STORY_PARAMETERS: ReadonlySet<string> = new Set([
  'ref',
  'source',
  'src',
  'via',
  'from',
  'rss',
  'feed',
  'cmp',
  'cmpid',
  'mod',
  'partner',
  'share',
  'at_medium',
  'at_campaign',
]);

/** The key two links of one page share; null for a link that is not an absolute http(s) URL. */
export function pageKeyOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(cleanUrl(url.trim()));
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const kept = [...parsed.searchParams].filter(([name]) => !STORY_PARAMETERS.has(name.toLowerCase()));
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = new URLSearchParams(kept).toString();
  const host = parsed.hostname.toLowerCase().replace(/^www\./, '');
  const port = parsed.port === '' ? '' : `:${parsed.port}`;
  const path = parsed.pathname.replace(/\/+$/, '') || '/';
  return `${host}${port}${path}${query === '' ? '' : `?${query}`}`;
}
