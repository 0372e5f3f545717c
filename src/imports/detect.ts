import { looksLikeBookmarks, parseBookmarks } from './bookmarks.js';
import { csvHeader } from './csv.js';
import { parseInstapaperCsv } from './instapaper.js';
import { looksLikeOmnivore, parseOmnivoreJson, parseOmnivoreZip } from './omnivore.js';
import { parsePocketCsv, parsePocketHtml, parsePocketZip } from './pocket.js';
import {
  IMPORT_FORMATS,
  type ImportFormat,
  checkFileSize,
  formatExport,
  type ParsedFile,
  unreadable,
} from './record.js';
import { looksLikeWallabag, parseWallabagJson } from './wallabag.js';
import { isZip, zipNames } from './zip.js';

/**
 * Reads an export file, its format recognised by content: a zip (Omnivore's when it holds metadata_*.json,
 * else Pocket's CSVs), JSON (Wallabag's entries, or one Omnivore metadata file), HTML (Netscape bookmarks,
 * or Pocket's ril_export.html), CSV (Pocket's header has time_added, Instapaper's folder). With a format
 * named, a file recognised as another is refused (`invalid_input`, naming what it looks like). A file past
 * the size limit is `limit_reached`.
 */
export function parseExport(bytes: Uint8Array, format: ImportFormat | 'auto'): ParsedFile {
  checkFileSize(bytes.length);
  const { found, parse } = recognise(bytes);
  if (format !== 'auto' && format !== found) {
    throw unreadable(`The file looks like ${formatExport(found)}, not ${format}; try --format auto.`);
  }
  return parse();
}

/** How much of a file's start is read to recognise it (a JSON file is never decoded whole). */
const HEAD_BYTES = 100_000;

function recognise(bytes: Uint8Array): { found: ImportFormat; parse: () => ParsedFile } {
  if (isZip(bytes)) {
    // Names only: nothing is inflated to recognise the zip.
    return looksLikeOmnivore(zipNames(bytes))
      ? { found: 'omnivore', parse: () => parseOmnivoreZip(bytes) }
      : { found: 'pocket', parse: () => parsePocketZip(bytes) };
  }
  const head = decode(bytes.subarray(0, HEAD_BYTES));
  const start = head.trimStart().slice(0, 1);
  if (start === '[' || start === '{') {
    if (looksLikeWallabag(head)) return { found: 'wallabag', parse: () => parseWallabagJson(bytes) };
    if (/"savedAt"\s*:/.test(head)) {
      return { found: 'omnivore', parse: () => parseOmnivoreJson(bytes, 'metadata') };
    }
    throw unreadable('This JSON is neither a Wallabag export nor Omnivore metadata.');
  }
  // Text formats without readable HTML: read whole.
  const text = bytes.length <= HEAD_BYTES ? head : decode(bytes);
  if (looksLikeBookmarks(text)) return { found: 'bookmarks', parse: () => parseBookmarks(text) };
  if (/^\s*</.test(text)) {
    if (/time_added\s*=/i.test(text)) return { found: 'pocket', parse: () => parsePocketHtml(text) };
    throw unreadable('This HTML is neither a bookmarks file nor Pocket’s ril_export.html.');
  }
  const header = csvHeader(text) ?? [];
  if (header.includes('time_added') || (header.includes('status') && header.includes('url'))) {
    return { found: 'pocket', parse: () => parsePocketCsv(text) };
  }
  if (header.includes('url') && header.includes('folder')) {
    return { found: 'instapaper', parse: () => parseInstapaperCsv(text) };
  }
  throw unreadable(
    `The file is not an export this import reads (${IMPORT_FORMATS.join(', ')}); see docs/reading-list.md.`,
  );
}

/** UTF-8 text without its byte-order mark. */
const decode = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('utf8')
    .replace(/^\ufeff/, '');
