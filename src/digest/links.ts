/* The links of a digest and of the reader's pages, built from the instance's base URL and the account's tokens. */

export interface DigestLinks {
  /** This digest as a web page, the account's digest token in its query (the page needs it). */
  web: string;
  /** This digest as an EPUB (`/digests/ID/epub`, same token): "Read on your e-reader". */
  epub: string;
  /** Where the reader manages feeds. */
  feeds: string;
  /** Where the reader changes when and how digests arrive. */
  settings: string;
  /** The reader's archive of digests (signed in). */
  archive: string;
  /** The web pages of the digests built just before and after this one (the web page only; else null). */
  previousDigest: string | null;
  nextDigest: string | null;
  /** In an email only: its private one-click unsubscribe page (digest/unsubscribe.ts). */
  unsubscribe?: string;
}

/** Links of a digest and of the reader's pages, from the instance's base URL and the account's digest token. */
export function digestLinks(baseUrl: string, digestId: number, token: string | null = null): DigestLinks {
  const base = baseUrl.replace(/\/+$/, '');
  const query = token === null ? '' : `?token=${encodeURIComponent(token)}`;
  return {
    web: `${base}/digests/${digestId}${query}`,
    epub: `${base}/digests/${digestId}/epub${query}`,
    feeds: `${base}/feeds`,
    settings: `${base}/settings`,
    archive: `${base}/digests`,
    previousDigest: null,
    nextDigest: null,
  };
}

/** The link of page `page` of a digest's web page, from its first page's link. */
export function digestPageUrl(web: string, page: number): string {
  return page === 1 ? web : `${web}${web.includes('?') ? '&' : '?'}page=${page}`;
}

/** The private link of a page's reading view; null without a token (nothing could open it). */
export function readingLink(baseUrl: string, pageId: number, token: string | null): string | null {
  if (token === null) return null;
  return `${baseUrl.replace(/\/+$/, '')}/items/${pageId}?token=${encodeURIComponent(token)}`;
}
