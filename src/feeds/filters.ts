/**
 * Per-subscription include / exclude filters. A filter is a list of terms separated by commas or new
 * lines; a term is a case-insensitive word or phrase, or a `/regular expression/` (flags i, u allowed).
 * Terms match the item's title and summary. An item passes when it matches some include term (or there
 * are none) and no exclude term.
 */

export class FilterError extends Error {
  override name = 'FilterError';
}

/** A compiled filter, or one of its terms: whether it matches a text. */
export type Filter = (text: string) => boolean;
type Term = Filter;

const MAX_FILTER_LENGTH = 2000;

/** Compiles a filter; null for an empty one. Throws FilterError for a bad regular expression. */
export function compileFilter(source: string | null | undefined): Term | null {
  const text = (source ?? '').trim();
  if (text === '') return null;
  if (text.length > MAX_FILTER_LENGTH)
    throw new FilterError(`a filter is at most ${MAX_FILTER_LENGTH} characters`);
  const terms = splitTerms(text).map(compileTerm);
  return (haystack) => terms.some((t) => t(haystack));
}

function splitTerms(text: string): string[] {
  const terms: string[] = [];
  // A /regex/ may contain commas; everything else splits on commas and new lines.
  const pattern = /\s*(\/(?:\\.|[^/\\\n])+\/[iu]*|[^,\n]+)\s*(?:[,\n]|$)/g;
  for (const m of text.matchAll(pattern)) {
    const term = (m[1] ?? '').trim();
    if (term !== '') terms.push(term);
  }
  return terms;
}

function compileTerm(term: string): Term {
  const re = /^\/(.+)\/([iu]*)$/s.exec(term);
  if (re !== null) {
    let regex: RegExp;
    try {
      regex = new RegExp(re[1] ?? '', (re[2] ?? '').includes('i') ? re[2] : `${re[2] ?? ''}i`);
    } catch (err) {
      throw new FilterError(
        `not a valid regular expression ${term}: ${err instanceof Error ? err.message : ''}`,
      );
    }
    return (text) => regex.test(text);
  }
  const needle = term.toLocaleLowerCase();
  // Whole words: "go" matches "Go 1.24 released" but not "good".
  const word = new RegExp(`(?:^|[^\\p{L}\\p{N}_])${escapeRegex(needle)}(?:$|[^\\p{L}\\p{N}_])`, 'u');
  return (text) => word.test(text.toLocaleLowerCase());
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether an item passes a subscription's filters. */
export function passesFilters(
  item: { title: string; summary: string },
  include: Term | null,
  exclude: Term | null,
): boolean {
  const text = `${item.title}\n${item.summary}`;
  if (include !== null && !include(text)) return false;
  return exclude === null || !exclude(text);
}
