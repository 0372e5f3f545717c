import { createHash } from 'node:crypto';
import { TidingsError } from '../errors.js';
import { withoutBidiControls } from '../lib/bidi.js';
import { MAX_TITLE_LENGTH as TITLE_LENGTH } from '../lib/display.js';
import { codePoints, truncate } from '../lib/text.js';

export const MAX_URL_LENGTH = 2048;
/** lib/display.ts: the one length of a title, queued or shown. */
export const MAX_TITLE_LENGTH = TITLE_LENGTH;

/** Query parameters that only track where a click came from; dropped when comparing URLs. */
const TRACKING_PARAMS = new Set([
  'fbclid',
  'gclid',
  'dclid',
  'gbraid',
  'wbraid',
  'msclkid',
  'mc_cid',
  'mc_eid',
  'igshid',
  'yclid',
  '_hsenc',
  '_hsmi',
  'mkt_tok',
  'oly_anon_id',
  'oly_enc_id',
  'vero_id',
  'rb_clickid',
  's_cid',
]);

const isTrackingParam = (name: string): boolean => {
  const lower = name.toLowerCase();
  return lower.startsWith('utm_') || TRACKING_PARAMS.has(lower);
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface CheckedUrl {
  /** The URL as the client sent it, trimmed: what GET shows. */
  url: string;
  /** What makes two saved URLs the same: the SHA-256 (hex) of the normalised URL. */
  key: string;
}

/** Validates a URL for the queue: absolute http(s), at most 2,048 characters. Throws a TidingsError. */
export function checkUrl(raw: string | undefined): CheckedUrl {
  if (raw === undefined) throw new TidingsError('url_missing', 'url is required');
  const url = raw.trim();
  if (url === '') throw new TidingsError('url_missing', 'url is required and must not be empty');
  if (CONTROL.test(url) || LONE_SURROGATE.test(url)) {
    throw new TidingsError('url_invalid', 'url must not contain control characters or invalid Unicode');
  }
  if (url.length > MAX_URL_LENGTH) {
    throw new TidingsError(
      'url_too_long',
      `url is ${url.length} characters long; at most ${MAX_URL_LENGTH} are allowed`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TidingsError('url_invalid', 'url must be an absolute http or https URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TidingsError('url_invalid', `url must use http or https, not ${parsed.protocol.slice(0, -1)}`);
  }
  if (parsed.hostname === '') throw new TidingsError('url_invalid', 'url must name a host');
  return { url, key: urlKey(normaliseUrl(parsed)) };
}

/** Normalised URLs longer than this are keyed by their hash. */
export const MAX_PLAIN_KEY_LENGTH = 500;

/**
 * The key a URL is deduplicated by: the normalised URL itself, so that the index keeps URLs of one site
 * and path together and a batch of saves or a feed's items touch a few index pages instead of one page
 * each (a hash scatters them, which made saves three times slower once a queue held 100,000 items). A
 * normalised URL is ASCII (WHATWG serialisation percent-encodes the rest); a long one, up to 9 times its
 * 2,048 characters once percent-encoded, would not fit a PostgreSQL index entry (2,704 bytes), so past
 * MAX_PLAIN_KEY_LENGTH the key is `sha256:` and its hash, which no URL starts with.
 */
export const urlKey = (normalised: string): string =>
  normalised.length <= MAX_PLAIN_KEY_LENGTH
    ? normalised
    : `sha256:${createHash('sha256').update(normalised).digest('hex')}`;

/**
 * The comparison form of a URL: scheme and host lower-cased, default port, fragment and tracking
 * parameters (utm_*, fbclid, …) dropped. WHATWG URL parsing already lower-cases and drops default ports.
 */
export function normaliseUrl(input: URL | string): string {
  const u = new URL(input.toString());
  u.hash = '';
  const names = [...new Set(u.searchParams.keys())];
  for (const name of names) if (isTrackingParam(name)) u.searchParams.delete(name);
  if (u.search === '?') u.search = '';
  return u.href;
}

// eslint-disable-next-line no-control-regex
const CONTROL_OR_SPACE = /[\s\u0000-\u001f\u007f-\u009f]+/g;

const LONE_SURROGATE_G = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * A title: optional, trimmed, whitespace runs folded, bidi controls dropped (lib/text.ts); missing or
 * blank → the URL. One longer than
 * MAX_TITLE_LENGTH characters is refused (a TidingsError), or with `tooLong: 'shorten'` cut on a word and
 * marked with "…".
 */
export function checkTitle(
  raw: string | undefined,
  url: string,
  tooLong: 'refuse' | 'shorten' = 'refuse',
): string {
  if (raw === undefined) return url;
  const title = withoutBidiControls(raw)
    .replace(CONTROL_OR_SPACE, ' ')
    .replace(LONE_SURROGATE_G, '\ufffd')
    .trim();
  if (title === '') return url;
  const length = codePoints(title);
  // truncate counts UTF-16 units, never fewer than characters: its result is within the limit.
  if (length > MAX_TITLE_LENGTH && tooLong === 'shorten') return truncate(title, MAX_TITLE_LENGTH);
  if (length > MAX_TITLE_LENGTH) {
    throw new TidingsError(
      'title_invalid',
      `title is ${length} characters long; at most ${MAX_TITLE_LENGTH} are allowed`,
    );
  }
  return title;
}
