/** Separators between a page's title and its site's name: "Title | Site", "Title – Site", "Title - Site"… */
const SEPARATOR = / (?:\||–|-|—|·|::) /g;

/** Letters and digits only, lower-cased: "The Verge" and "theverge.com"'s label compare equal. */
const squash = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * `title` without a trailing " | Site" (or –, -, —, ·, ::) when that part repeats the site's name: its
 * og:site_name, its registrable domain ("nytimes.com") or that domain's first label ("nytimes"), letters
 * and digits compared. Only the last separator is considered; a title that would be left short or empty
 * is kept whole.
 */
export function stripSiteSuffix(title: string, siteName: string | null, domain: string | null): string {
  let last: RegExpExecArray | null = null;
  for (const m of title.matchAll(SEPARATOR)) last = m;
  if (last === null) return title;
  const head = title.slice(0, last.index).trim();
  const suffix = squash(title.slice(last.index + last[0].length));
  if (head.length < 3 || suffix === '') return title;
  const names = [siteName, domain, domain?.split('.')[0] ?? null]
    .filter((n): n is string => n !== null)
    .map(squash);
  return names.includes(suffix) ? head : title;
}
