/**
 * Parameters that only tell a site (or its mailer, ad network or analytics) where a visitor came from.
 * Dropping them never changes which page is served, so a saved link is kept without them, and two saves
 * of one page shared through different channels are the same link. Matched case-sensitively, as sites
 * send them. Every `utm_` parameter goes too (UTM_PREFIX).
 *
 * Conservative on purpose: `ref`, `source`, `src`, `via`, `s`, `t`, `si` and `id` are left alone, since on
 * some sites they choose the page (a git ref, a time offset, a search); `si` is a share token only on
 * YouTube and Spotify, which SHARE_ONLY names.
 */
export const TRACKING_PARAMETERS: readonly string[] = [
  'fbclid', // Facebook
  'gclid', // Google Ads
  'gclsrc',
  'dclid', // Google Display
  'gbraid',
  'wbraid',
  'msclkid', // Microsoft Ads
  'yclid', // Yandex
  'twclid', // X / Twitter
  'ttclid', // TikTok
  'li_fat_id', // LinkedIn
  'igshid', // Instagram
  'mc_cid', // Mailchimp
  'mc_eid',
  '_hsenc', // HubSpot
  '_hsmi',
  'mkt_tok', // Marketo
  'vero_id', // Vero
  'vero_conv',
  'oly_enc_id', // Omeda
  'oly_anon_id',
  'wt_mc', // Webtrends
  'wt_zmc',
  'ocid', // Microsoft / MSN
  's_cid', // Adobe
  'ref_src', // X / Twitter embeds
  'smid', // New York Times share
  'referringSource',
  '_ga', // Google Analytics cross-domain
  '_gl',
];

/** The prefix of Urchin (Google Analytics) campaign parameters: utm_source, utm_medium, utm_anything. */
export const UTM_PREFIX = 'utm_';

/** Parameters that are share tokens only on these registrable domains (and their subdomains). */
export const SHARE_ONLY: ReadonlyMap<string, readonly string[]> = new Map([
  ['si', ['youtube.com', 'youtu.be', 'spotify.com']],
  ['feature', ['youtube.com', 'youtu.be']], // feature=share, feature=shared
]);

const ALWAYS: ReadonlySet<string> = new Set(TRACKING_PARAMETERS);

function isTracking(name: string, host: string): boolean {
  if (name.startsWith(UTM_PREFIX) || ALWAYS.has(name)) return true;
  const domains = SHARE_ONLY.get(name);
  return domains !== undefined && domains.some((d) => host === d || host.endsWith(`.${d}`));
}

/** The name of one `name=value` pair of a query, percent-decoded when it can be. */
function nameOf(pair: string): string {
  const eq = pair.indexOf('=');
  const raw = (eq === -1 ? pair : pair.slice(0, eq)).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The URL without its tracking parameters (TRACKING_PARAMETERS, UTM_PREFIX, SHARE_ONLY). Everything else
 * is kept byte for byte: the other parameters in their order and encoding, the fragment, the rest of the
 * URL as given (it is not normalised through the URL parser). A URL that does not parse, is not http(s)
 * or has no tracking parameter is returned unchanged; a query left empty loses its "?".
 */
export function cleanUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  let host: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return url;
    host = parsed.hostname.toLowerCase();
  } catch {
    return url;
  }
  const hash = url.indexOf('#', q);
  const end = hash === -1 ? url.length : hash;
  const pairs = url.slice(q + 1, end).split('&');
  const kept = pairs.filter((pair) => pair === '' || !isTracking(nameOf(pair), host));
  if (kept.length === pairs.length) return url;
  const query = kept.filter((pair) => pair !== '').join('&');
  return url.slice(0, q) + (query === '' ? '' : `?${query}`) + url.slice(end);
}
