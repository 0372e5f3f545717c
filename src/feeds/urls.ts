/**
 * `href` made absolute against `base`, or null when it is blank, cannot be made absolute, or is not
 * http(s): links from a feed end up in a digest a person clicks, where "javascript:" has no place.
 */
export function resolveHttpUrl(href: string | undefined, base: string | null): string | null {
  const url = absolute(href, base);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') ? url.href : null;
}

/**
 * The base URL for links inside an element: its xml:base resolved against the enclosing base (any
 * scheme, as xml:base allows), else the enclosing base.
 */
export function nestedBase(xmlBase: string | undefined, base: string | null): string | null {
  return absolute(xmlBase, base)?.href ?? base;
}

/** True for an absolute http(s) URL, as some guids and ids are. */
export function isHttpUrl(value: string): boolean {
  return /^https?:\/\/[^\s/]/i.test(value) && absolute(value, null) !== null;
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
