import { TidingsError } from '../errors.js';
import { codePoints } from './text.js';

/**
 * What a person types into search, read once for both engines (issue 13): words, "quoted phrases",
 * `-excluded` words or phrases, and `OR` (in capitals) between two words or phrases. Everything else is a
 * word: AND, NOT, NEAR and any punctuation (`*`, `(`, `:`, `^`, a lone `"`) are no syntax here, and a term
 * is only ever handed to an engine as its words, each made of letters, digits and marks. A term with no
 * such word ("*", "--") is dropped.
 *
 * Scripts written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer, Burmese) are matched
 * as a substring of the text rather than as words: neither engine's tokenizer splits them into words.
 */

/** Characters a search may have. */
export const SEARCH_QUERY_LIMIT = 200;
/** Words and phrases a search may have. */
export const SEARCH_TERM_LIMIT = 16;

export interface SearchTerm {
  /** Its words, as typed (each letters, digits and marks only); a phrase has several, in order. */
  words: string[];
  /** True when it is matched as a substring (a script without spaces), not as words. */
  substring: boolean;
}

/** Terms of which any one may match (joined by OR); an excluded clause has exactly one term. */
export interface SearchClause {
  excluded: boolean;
  terms: SearchTerm[];
}

/** Clauses that must all hold; at least one is not excluded. */
export interface SearchQuery {
  clauses: SearchClause[];
}

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** A character of a script written without spaces (migration 0017 has its own copy, as ranges). */
export const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

type Token = { kind: 'or' } | { kind: 'term'; excluded: boolean; term: SearchTerm | null };

/** Reads a search; a TidingsError `invalid_input` says what to change (too long, nothing to look for). */
export function parseSearchQuery(input: string): SearchQuery {
  const text = input.normalize('NFC');
  if (codePoints(text) > SEARCH_QUERY_LIMIT) {
    throw new TidingsError('invalid_input', `A search is at most ${SEARCH_QUERY_LIMIT} characters.`, {
      facts: { reason: 'search_too_long', max: SEARCH_QUERY_LIMIT },
    });
  }
  const clauses: SearchClause[] = [];
  let joinNext = false;
  let termCount = 0;
  for (const token of tokens(text)) {
    if (token.kind === 'or') {
      joinNext = clauses.length > 0 && clauses.at(-1)?.excluded === false;
      continue;
    }
    const { term, excluded } = token;
    if (term === null) continue;
    if (++termCount > SEARCH_TERM_LIMIT) {
      throw new TidingsError('invalid_input', `A search has at most ${SEARCH_TERM_LIMIT} words or phrases.`, {
        facts: { reason: 'search_too_many_terms', max: SEARCH_TERM_LIMIT },
      });
    }
    const last = clauses.at(-1);
    if (joinNext && !excluded && last !== undefined) last.terms.push(term);
    else clauses.push({ excluded, terms: [term] });
    joinNext = false;
  }
  if (clauses.length === 0)
    throw new TidingsError('invalid_input', 'Type a word to search for.', {
      facts: { reason: 'search_empty' },
    });
  if (clauses.every((c) => c.excluded)) {
    throw new TidingsError('invalid_input', 'Add a word to look for: a search cannot only leave words out.', {
      facts: { reason: 'search_only_excluded' },
    });
  }
  return { clauses };
}

/** True when the search is blank (nothing typed but spaces): the web shows the empty form then. */
export const isBlankSearch = (input: string): boolean => input.trim() === '';

function* tokens(text: string): Generator<Token> {
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    if (/\s/u.test(c)) {
      i++;
      continue;
    }
    let excluded = false;
    if (c === '-' && i + 1 < text.length && !/\s/u.test(text[i + 1] ?? ' ')) {
      excluded = true;
      i++;
    }
    let raw: string;
    let quoted = false;
    if (text[i] === '"') {
      const end = text.indexOf('"', i + 1);
      raw = text.slice(i + 1, end === -1 ? text.length : end);
      i = end === -1 ? text.length : end + 1;
      quoted = true;
    } else {
      const start = i;
      while (i < text.length && !/\s/u.test(text[i] ?? ' ') && text[i] !== '"') i++;
      raw = text.slice(start, i);
    }
    if (!excluded && !quoted && raw === 'OR') yield { kind: 'or' };
    else yield { kind: 'term', excluded, term: termOf(raw) };
  }
}

function termOf(raw: string): SearchTerm | null {
  const words = raw.match(WORD) ?? [];
  return words.length === 0 ? null : { words, substring: words.some((w) => UNSPACED.test(w)) };
}

/** A term as plain text: its words joined by spaces (what a substring term looks for). */
export const termText = (term: SearchTerm): string => term.words.join(' ');
