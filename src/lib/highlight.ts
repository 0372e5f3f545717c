import { type SearchQuery, type SearchTerm, termText } from './searchQuery.js';

/**
 * Where a search's words are in a text, as structured data: segments of plain text, some marked. The
 * renderers escape every segment and add the marks themselves (<mark> on the web, nothing in JSON), so
 * no stored text is ever trusted as markup. One rule for both engines: words compare with case and
 * diacritics folded ("Cafe" marks "café"), phrases as consecutive words, a substring term (see
 * lib/searchQuery.ts) anywhere. Excluded words are never marked.
 */
export interface Segment {
  text: string;
  mark: boolean;
}

/** Characters of context a snippet shows around the first match, before and after. */
const BEFORE = 80;
const AFTER = 200;

/** The whole of `text`, its matches marked. */
export function highlight(text: string, query: SearchQuery): Segment[] {
  return segmentsOf(text, matches(text, query), 0, text.length);
}

/**
 * A short passage of the first of `texts` that matches, cut around its first match with "…" where it was
 * cut; the start of the first non-empty text when none does; [] when all are empty.
 */
export function snippet(texts: readonly (string | null)[], query: SearchQuery): Segment[] {
  const present = texts.filter((t): t is string => t !== null && t.trim() !== '');
  for (const text of present) {
    const ranges = matches(text, query);
    const first = ranges[0];
    if (first === undefined) continue;
    const start = boundary(text, Math.max(0, first[0] - BEFORE), -1);
    const end = boundary(text, Math.min(text.length, first[1] + AFTER), 1);
    return segmentsOf(text, ranges, start, end);
  }
  const text = present[0];
  if (text === undefined) return [];
  return segmentsOf(text, [], 0, boundary(text, Math.min(text.length, BEFORE + AFTER), 1));
}

/** Plain text of segments (for a title attribute or a terminal). */
export const segmentText = (segments: readonly Segment[]): string => segments.map((s) => s.text).join('');

type Range = [number, number];

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

const fold = (s: string): string => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/** The ranges of `text` the query's terms cover, sorted and merged. */
function matches(text: string, query: SearchQuery): Range[] {
  const terms = query.clauses.filter((c) => !c.excluded).flatMap((c) => c.terms);
  if (terms.length === 0 || text === '') return [];
  const words = [...text.matchAll(WORD)].map((m) => ({
    folded: fold(m[0]),
    start: m.index,
    end: m.index + m[0].length,
  }));
  const found: Range[] = [];
  for (const term of terms) {
    if (term.substring) found.push(...substrings(text, term));
    else found.push(...phrases(words, term));
  }
  found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: Range[] = [];
  for (const r of found) {
    const last = merged.at(-1);
    if (last !== undefined && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

function phrases(words: { folded: string; start: number; end: number }[], term: SearchTerm): Range[] {
  const wanted = term.words.map(fold);
  const out: Range[] = [];
  for (let i = 0; i + wanted.length <= words.length; i++) {
    if (!wanted.every((w, k) => words[i + k]?.folded === w)) continue;
    const first = words[i];
    const last = words[i + wanted.length - 1];
    if (first !== undefined && last !== undefined) out.push([first.start, last.end]);
  }
  return out;
}

function substrings(text: string, term: SearchTerm): Range[] {
  const lower = text.toLowerCase();
  const haystack = lower.length === text.length ? lower : text;
  const needle = termText(term).toLowerCase();
  const out: Range[] = [];
  if (needle === '') return out;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    out.push([at, at + needle.length]);
  }
  return out;
}

/** `at` moved to the nearest space in `direction` (within 20 characters), so a cut falls between words. */
function boundary(text: string, at: number, direction: -1 | 1): number {
  if (at <= 0 || at >= text.length) return Math.max(0, Math.min(at, text.length));
  for (let k = 0; k < 20; k++) {
    const i = at + direction * k;
    if (i <= 0 || i >= text.length) break;
    if (text[i] === ' ') return direction < 0 ? i + 1 : i;
  }
  return at;
}

function segmentsOf(text: string, ranges: readonly Range[], start: number, end: number): Segment[] {
  const out: Segment[] = [];
  const push = (s: string, mark: boolean) => {
    if (s !== '') out.push({ text: s, mark });
  };
  if (start > 0) push('…', false);
  let at = start;
  for (const [from, to] of ranges) {
    if (to <= at || from >= end) continue;
    push(text.slice(at, Math.max(at, from)), false);
    push(text.slice(Math.max(at, from), Math.min(to, end)), true);
    at = Math.min(to, end);
  }
  push(text.slice(at, end), false);
  if (end < text.length) push('…', false);
  return out;
}
