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
