/**
 * The domain a reader recognises a link by: the URL's host name without a leading "www.", and without a
 * port ("www.example.com:8080/a" → "example.com"); "" when the text is not a URL.
 */
export function domainOf(url: string | URL): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}

/** The host (with its port) a URL is fetched from, for per-host limits; the text itself when not a URL. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** `value` as a URL when it is an absolute http(s) one (the only kind a rendering turns into a link); else null. */
export function httpUrl(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** The longest link kept from a page or a message, in characters (as the queue's own limit). */
export const MAX_LINK_LENGTH = 2048;

/**
 * An absolute http(s) URL made from `value` against `base` (a page's address, or null), as a string; null
 * for other schemes, junk, or a URL longer than MAX_LINK_LENGTH.
 */
export function resolveHttpUrl(value: string | null | undefined, base: string | null): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.length > MAX_LINK_LENGTH) return null;
  try {
    const url = base === null ? new URL(trimmed) : new URL(trimmed, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.href.length > MAX_LINK_LENGTH ? null : url.href;
  } catch {
    return null;
  }
}
