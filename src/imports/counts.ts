import type { PreparedImport } from './prepare.js';
import { type BadRow, IMPORT_LIMITS, type ImportFormat } from './record.js';

/*
 * An import's counts and their words, apart from the reading and writing (importLinks.ts, prepare.ts) so
 * that the web app's page and the upload's thread keeper load the parsers, the sanitiser and
 * Readability's neighbours only when a file is imported (issue 26: an idle serve loads none of them).
 */

/** What an import did, as the CLI prints it and the web shows it. */
export interface ImportCounts {
  format: ImportFormat;
  /** Links the file lists, bad ones included. */
  rows: number;
  /** New items of the reading list. */
  imported: number;
  /** Links the account had already: merged into its item (tags joined, the earliest date). */
  merged: number;
  /** Further copies of a link within the file (merged into its first). */
  duplicates: number;
  /** Rows that could not be read or whose URL is not http(s); a few of them with where and why. */
  bad: number;
  badExamples: BadRow[];
}

/** Keys handled per transaction (and per message from the import thread). */
export const IMPORT_BATCH = 500;

/** The counts of an import, from its file read and what was written. */
export const importCounts = (
  prepared: Omit<PreparedImport, 'links'>,
  written: { imported: number; merged: number },
): ImportCounts => ({
  format: prepared.format,
  rows: prepared.rows,
  imported: written.imported,
  merged: written.merged,
  duplicates: prepared.duplicates,
  bad: prepared.bad.length,
  badExamples: prepared.bad.slice(0, IMPORT_LIMITS.badExamples),
});
