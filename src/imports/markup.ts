import { scanMarkup } from '../articles/scanMarkup.js';
import { TidingsError } from '../errors.js';
import { IMPORT_LIMITS } from './record.js';

/**
 * Refuses an export's HTML (bookmarks, Pocket's ril_export.html) that nests deeper than an import reads,
 * before it is parsed: the page reader's scan (articles/scanMarkup.ts), linear in what it reads, with the
 * import's nesting limit and no limit on elements (a file of 100,000 links has several times as many).
 */
export function checkNesting(html: string): void {
  const scan = scanMarkup(html, { nesting: IMPORT_LIMITS.nesting, elements: Number.POSITIVE_INFINITY });
  if (scan.past !== null) {
    throw new TidingsError(
      'limit_reached',
      `The file's HTML nests more than ${IMPORT_LIMITS.nesting} levels deep (folders or lists within each other); an import reads at most ${IMPORT_LIMITS.nesting} levels.`,
      { facts: { reason: 'import_too_deep', levels: IMPORT_LIMITS.nesting } },
    );
  }
}
