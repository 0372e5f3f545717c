/** How many of a feed's entries a digest shows unless the reader chose (issue 24). */
export const DEFAULT_PER_DIGEST = 3;

export type PerDigest = number | 'all';

/** subscriptions.per_digest as a share: null the default, -1 all. */
export function perDigestOf(column: number | null): PerDigest {
  if (column === null) return DEFAULT_PER_DIGEST;
  return column < 0 ? 'all' : column;
}
