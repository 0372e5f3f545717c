import { Parser } from 'htmlparser2';
import { MAX_ELEMENTS, MAX_NESTING } from './limits.js';

/*
 * Apart from limits.ts because of htmlparser2: the main thread reads the limits (extractPool.ts) but only
 * the extraction thread scans pages, so a server that reads none never loads the parser (issue 26). The
 * reading-list import scans an export's HTML with it too (imports/markup.ts, imports/merge.ts).
 */

/** How deep markup may nest and how many elements it may have before it is parsed. */
export interface MarkupLimits {
  nesting: number;
  elements: number;
}

/** A saved page's limits (articles/limits.ts). */
export const PAGE_MARKUP: MarkupLimits = { nesting: MAX_NESTING, elements: MAX_ELEMENTS };

export interface MarkupScan {
  /** The deepest nesting seen (up to where the scan stopped). */
  depth: number;
  /** Elements seen (up to where the scan stopped). */
  elements: number;
  /** The limit the markup went past (the scan stopped there), or null. */
  past: 'nesting' | 'elements' | null;
}

/** How much markup is tokenised between checks; smaller than any depth the scan could pay for. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The nesting and element count of markup, read without building a DOM, before it is parsed:
 * htmlparser2's own tokenizer and rules of implied end tags (the parse linkedom does), with callbacks
 * that only count. It stops at the first element past a limit, so its cost stays linear in what it read
 * (the parser's stack, whose cost is the square of its depth, never grows past `limits.nesting`).
 */
export function scanMarkup(html: string, limits: MarkupLimits = PAGE_MARKUP): MarkupScan {
  const scan: MarkupScan = { depth: 0, elements: 0, past: null };
  let depth = 0;
  const parser: Parser = new Parser(
    {
      onopentag() {
        scan.elements++;
        depth++;
        if (depth > scan.depth) scan.depth = depth;
        if (depth > limits.nesting) scan.past = 'nesting';
        else if (scan.elements > limits.elements) scan.past = 'elements';
        if (scan.past !== null) parser.pause();
      },
      onclosetag() {
        depth--;
      },
      // Entities change no element: left undecoded, which is faster.
    },
    { decodeEntities: false },
  );
  for (let at = 0; at < html.length && scan.past === null; at += CHUNK_CHARS) {
    parser.write(html.slice(at, at + CHUNK_CHARS));
  }
  if (scan.past === null) parser.end();
  return scan;
}
