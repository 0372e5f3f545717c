/**
 * `href` made absolute against `base`, or null when it is blank, cannot be made absolute, or is not
 * http(s): links from a feed end up in a digest a person clicks, where "javascript:" has no place.
 */
export function resolveHttpUrl(href: string | undefined, base: string | null): string | null {
  if (href !== undefined && CANONICAL_HTTP_URL.test(href)) return href;
  const url = absolute(href, base);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') ? url.href : null;
}

/**
 * An absolute http(s) URL that is its own `href`, as most links in feeds are: parsing it would only copy
 * it, so resolveHttpUrl() returns it as it is (and isHttpUrl() knows it is one). Lower-case scheme and
 * host; a host of letters, digits, hyphens and dots, whose labels are not empty, none starts with "xn--"
 * (IDNA would check its Punycode) and the last starts with a letter (a last label of digits or "0x…" makes
 * the host an IPv4 address); no user or port; a path of characters the parser never percent-encodes,
 * without "%" (it may spell a dot) and with no segment starting with "." (it may be "." or ".."); then,
 * optionally, a query of the same characters and "?" and "%", but no "'" (special URLs encode it there).
 * No fragment. Anything else is parsed.
 */
const CANONICAL_HTTP_URL =
  /^https?:\/\/(?:(?!xn--)[a-z0-9-]+\.)*(?!xn--)[a-z][a-z0-9-]*(?:\/(?!\.)[\w\-.~!$&'()*+,;=:@]*)+(?:\?[\w\-.~!$&()*+,;=:@/?%]*)?$/;

/**
 * The base URL for links inside an element: its xml:base resolved against the enclosing base (any
 * scheme, as xml:base allows), else the enclosing base.
 */
export function nestedBase(xmlBase: string | undefined, base: string | null): string | null {
  return absolute(xmlBase, base)?.href ?? base;
}

/** True for an absolute http(s) URL, as some guids and ids are. */
export function isHttpUrl(value: string): boolean {
  return (
    CANONICAL_HTTP_URL.test(value) || (/^https?:\/\/[^\s/]/i.test(value) && absolute(value, null) !== null)
  );
}

/** A URL with its own scheme and host, which a base cannot change: parsing it alone spares parsing the base. */
const SCHEME_AND_HOST = /^https?:\/\//i;

function absolute(href: string | undefined, base: string | null): URL | null {
  const trimmed = href?.trim();
  if (trimmed === undefined || trimmed === '') return null;
  try {
    return new URL(trimmed, base === null || SCHEME_AND_HOST.test(trimmed) ? undefined : base);
  } catch {
    return null;
  }
}
