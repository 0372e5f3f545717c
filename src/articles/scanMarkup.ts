import { Parser } from 'htmlparser2';
import { LIMIT_REASONS, MAX_ELEMENTS, MAX_NESTING } from './limits.js';

/*
 * Apart from limits.ts because of htmlparser2: the main thread reads the limits (extractPool.ts) but only
 * the extraction thread scans pages, so a server that reads none never loads the parser (issue 26).
 */

export interface MarkupScan {
  /** The deepest nesting seen (up to where the scan stopped). */
  depth: number;
  /** Elements seen (up to where the scan stopped). */
  elements: number;
  /** Why the page is not to be parsed (a LIMIT_REASONS text), or null. */
  refused: string | null;
}

/** How much markup is tokenised between checks; smaller than any depth the scan could pay for. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The nesting and element count of a page's markup, read without building a DOM, before it is parsed:
 * htmlparser2's own tokenizer and rules of implied end tags (the parse linkedom does), with callbacks
 * that only count. It stops at the first element past a limit, so its cost stays linear in what it read
 * (the parser's stack, whose cost is the square of its depth, never grows past MAX_NESTING).
 */
export function scanMarkup(html: string): MarkupScan {
  const scan: MarkupScan = { depth: 0, elements: 0, refused: null };
  let depth = 0;
  const parser: Parser = new Parser(
    {
      onopentag() {
        scan.elements++;
        depth++;
        if (depth > scan.depth) scan.depth = depth;
        if (depth > MAX_NESTING) scan.refused = LIMIT_REASONS.nesting;
        else if (scan.elements > MAX_ELEMENTS) scan.refused = LIMIT_REASONS.elements;
        if (scan.refused !== null) parser.pause();
      },
      onclosetag() {
        depth--;
      },
      // Entities change no element: left undecoded, which is faster.
    },
    { decodeEntities: false },
  );
  for (let at = 0; at < html.length && scan.refused === null; at += CHUNK_CHARS) {
    parser.write(html.slice(at, at + CHUNK_CHARS));
  }
  if (scan.refused === null) parser.end();
  return scan;
}
