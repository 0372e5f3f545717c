import { TidingsError } from '../errors.js';
import { TAG_CHARS, TAGS_PER_ITEM } from '../lib/readingTags.js';

/** The formats `tidings import --format` names; 'auto' recognises them by content. */
export const IMPORT_FORMATS = ['pocket', 'instapaper', 'omnivore', 'wallabag', 'bookmarks'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/**
 * The limits of one import (docs/reading-list.md). A file past one is refused whole (`limit_reached`):
 * nothing of it is imported.
 */
export const IMPORT_LIMITS = {
  /** The file as uploaded or named. */
  fileBytes: 50 * 1024 * 1024,
  /** A zip's entries once inflated, all together (each entry's declared size is checked first). */
  unzippedBytes: 256 * 1024 * 1024,
  /** Entries of a zip. */
  zipEntries: 20_000,
  /** Links of one file (rows, bookmarks or items, bad ones included). */
  rows: 100_000,
  /** Tags kept per link, and characters per tag. */
  tagsPerLink: TAGS_PER_ITEM,
  tagChars: TAG_CHARS,
  /**
   * How deep an HTML file's markup may nest (bookmarks, Pocket's ril_export.html), as the parser sees it:
   * a file past it is refused before it is parsed, since htmlparser2 costs the square of the depth (100,000
   * nested lists and 10,000 links took 36 s of CPU, a 12 MB file hours). A bookmark folder is two levels
   * (<DT>, <DL>: imports/bookmarks.ts), so this is 127 folders within folders; browsers' files nest a few.
   */
  nesting: 256,
  /** Bad rows reported by example (all are counted). */
  badExamples: 5,
} as const;

/** One link as an export lists it, before its URL is checked (the import service does that). */
export interface ImportedLink {
  url: string;
  title: string;
  /** ISO 8601; null when the export gives no date (the import's time is used). */
  savedAt: string | null;
  tags: string[];
  archived: boolean;
  /** Readable HTML the export carried (unsanitised here), and its metadata. */
  html: string | null;
  description: string | null;
  author: string | null;
  publishedAt: string | null;
}

/** A row that could not be read, and where: "line 12", "item 3", "metadata_0.json item 7". */
export interface BadRow {
  where: string;
  why: string;
}

/** One row of a file: a link, or why the row could not be read; with where it is. */
export type ParsedRow = { where: string; link: ImportedLink } | BadRow;

/**
 * A file read: its rows in the file's order. Those of a format that brings readable HTML (Wallabag,
 * Omnivore) are read one at a time as they are iterated, so that each link's HTML can be sanitised and
 * dropped before the next is read (issue 33, 11); the others are an array.
 */
export interface ParsedFile {
  format: ImportFormat;
  rows: Iterable<ParsedRow>;
}

export const isBadRow = (row: object): row is BadRow => 'why' in row;

export const emptyLink = (url: string): ImportedLink => ({
  url,
  title: '',
  savedAt: null,
  tags: [],
  archived: false,
  html: null,
  description: null,
  author: null,
  publishedAt: null,
});

/** "a pocket export", "an instapaper export": the format named with its article. */
export const formatExport = (format: ImportFormat): string =>
  `${/^[aeiou]/.test(format) ? 'an' : 'a'} ${format} export`;

/** A list of tags in one text, blanks dropped. */
export const splitTags = (value: string | undefined, separator: string): string[] =>
  (value ?? '').split(separator).filter((t) => t.trim() !== '');

/** Unix seconds as text → ISO 8601; null when it is not a plausible date. */
export function fromUnixSeconds(value: string | undefined): string | null {
  if (value === undefined || !/^\s*\d{1,12}\s*$/.test(value)) return null;
  const seconds = Number(value);
  return seconds > 0 ? isoOrNull(new Date(seconds * 1000)) : null;
}

/** A date as text (ISO 8601 and what Date reads) → ISO 8601; null when unreadable. */
export function fromDateText(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  return isoOrNull(new Date(value.trim()));
}

function isoOrNull(d: Date): string | null {
  const t = d.getTime();
  // Before 1990 or a day past now is no save date of any of these services.
  return Number.isFinite(t) && t >= Date.UTC(1990, 0, 1) && t <= Date.now() + 86_400_000
    ? d.toISOString()
    : null;
}

/** Refuses a file larger than an import takes (`limit_reached`), before it is read. */
export function checkFileSize(bytes: number): void {
  if (bytes > IMPORT_LIMITS.fileBytes) {
    throw new TidingsError(
      'limit_reached',
      `The file is ${(bytes / 1024 / 1024).toFixed(1)} MB; an import takes at most ${IMPORT_LIMITS.fileBytes / 1024 / 1024} MB.`,
      { facts: { reason: 'import_file_too_big', megabytes: IMPORT_LIMITS.fileBytes / 1024 / 1024 } },
    );
  }
}

/** Refuses the file whole when it lists more links than one import may. */
export function checkRowCount(rows: number): void {
  if (rows > IMPORT_LIMITS.rows) {
    throw new TidingsError(
      'limit_reached',
      `The file lists ${rows.toLocaleString('en')} links or more; one import takes at most ${IMPORT_LIMITS.rows.toLocaleString('en')}. Split it and import each part.`,
      { facts: { reason: 'import_too_many_links', limit: IMPORT_LIMITS.rows } },
    );
  }
}

/** The file's content is not what its format says: refused whole. */
export const unreadable = (message: string): TidingsError => new TidingsError('invalid_input', message);
