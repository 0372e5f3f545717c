import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { TidingsError } from '../errors.js';

/**
 * Per-subscription include / exclude filters. A filter is a list of terms separated by commas or new
 * lines; a term is a case-insensitive word or phrase, or a `/regular expression/` (flags i, u allowed).
 * Terms match the item's title and the start of its summary. An item passes when it matches some include
 * term (or there are none) and no exclude term.
 *
 * Neither a feed nor the person who writes a filter can make one run long: regular expressions run on
 * RE2 (re2js), whose time grows linearly with the text whatever the pattern (a backtracking engine, such as
 * JavaScript's own, can take minutes on a few dozen characters with a pattern like /(a|aa)+b/), and the
 * text is bounded (FILTER_TITLE_CHARS, FILTER_SUMMARY_CHARS).
 */

/** A compiled filter, or one of its terms: whether it matches a text. */
export type Filter = (text: string) => boolean;
type Term = Filter;

const MAX_FILTER_LENGTH = 2000;

let re2: typeof RE2JS | undefined;

/**
 * RE2, loaded by the first regular expression a filter has (issue 26): most filters have none, and a
 * server whose feeds have no filter never pays for it. Required, not imported, since compiling is
 * synchronous; the package's CommonJS build is the same code as its ES module.
 */
function re2js(): typeof RE2JS {
  re2 ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JS }).RE2JS;
  return re2;
}

/** How much of an item filters look at: the title's first characters, then the summary's. */
export const FILTER_TITLE_CHARS = 300;
export const FILTER_SUMMARY_CHARS = 1000;

/** Compiles a filter; null for an empty one. Throws TidingsError invalid_input for a regular expression RE2 cannot run. */
export function compileFilter(source: string | null | undefined): Term | null {
  const text = (source ?? '').trim();
  if (text === '') return null;
  if (text.length > MAX_FILTER_LENGTH)
    throw new TidingsError('invalid_input', `a filter is at most ${MAX_FILTER_LENGTH} characters`, {
      facts: { reason: 'filter_too_long', max: MAX_FILTER_LENGTH },
    });
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
    // Always case-insensitive, and always by code point: the i and u flags are accepted and change nothing.
    let regex: RE2JS;
    try {
      const engine = re2js();
      regex = engine.compile(re[1] ?? '', engine.CASE_INSENSITIVE);
    } catch (err) {
      const reason = unsupportedSyntax(re[1] ?? '') ?? parserReason(err);
      throw new TidingsError(
        'invalid_input',
        `not a valid regular expression ${term}: ${reason} (filters run RE2 syntax, in time linear in the ` +
          'text: no look-arounds such as (?=…) or (?<=…), no back-references such as \\1)',
        { facts: { reason: 'filter_invalid', term } },
      );
    }
    return (text) => regex.test(text);
  }
  const needle = term.toLocaleLowerCase();
  // Whole words: "go" matches "Go 1.24 released" but not "good".
  const word = new RegExp(`(?:^|[^\\p{L}\\p{N}_])${escapeRegex(needle)}(?:$|[^\\p{L}\\p{N}_])`, 'u');
  return (text) => word.test(text.toLocaleLowerCase());
}

/**
 * What RE2 lacks, named as such: its parser reads a look-behind as a broken named group ("invalid named
 * capture") and a look-ahead as unknown Perl syntax.
 */
function unsupportedSyntax(pattern: string): string | null {
  if (/\(\?<[=!]/.test(pattern)) return 'look-behind such as (?<=…) or (?<!…) is not supported';
  if (/\(\?[=!]/.test(pattern)) return 'look-ahead such as (?=…) or (?!…) is not supported';
  return null;
}

const parserReason = (err: unknown): string =>
  (err instanceof Error ? err.message : String(err)).replace(/^error parsing regexp: /, '');

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether an item passes a subscription's filters. */
export function passesFilters(
  item: { title: string; summary: string },
  include: Term | null,
  exclude: Term | null,
): boolean {
  const text = `${item.title.slice(0, FILTER_TITLE_CHARS)}\n${item.summary.slice(0, FILTER_SUMMARY_CHARS)}`;
  if (include !== null && !include(text)) return false;
  return exclude === null || !exclude(text);
}
