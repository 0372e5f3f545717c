import { parse } from 'csv-parse/sync';
import { checkRowCount, unreadable } from './record.js';

/**
 * A CSV's rows as objects keyed by its header (lower-cased), each with the line it ends on, and the rows
 * that could not be read with why: together, in the file's order.
 */
export interface CsvRows {
  header: string[];
  rows: ({ line: number; fields: Record<string, string> } | { line: number; why: string })[];
}

/** The header line of a CSV (lower-cased fields), to recognise its format; null when it has none. */
export function csvHeader(text: string): string[] | null {
  const first = text.replace(/^\ufeff/, '').split(/\r?\n/, 1)[0];
  if (first === undefined || !first.includes(',')) return null;
  return first.split(',').map((f) => f.trim().replace(/^"|"$/g, '').toLowerCase());
}

/**
 * Reads a CSV with a header. A row that cannot be read (a stray quote, a row too long) is skipped and
 * reported, never fatal; more rows than an import takes refuse the file whole.
 */
export function readCsv(text: string, required: readonly string[]): CsvRows {
  const header = csvHeader(text);
  if (header === null || !required.every((r) => header.includes(r))) {
    throw unreadable(`The CSV's first line must name the columns ${required.join(', ')}.`);
  }
  const rows: CsvRows['rows'] = [];
  parse<Record<string, string>>(text, {
    bom: true,
    columns: (names: string[]) => names.map((n) => n.trim().toLowerCase()),
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    max_record_size: 1024 * 1024,
    // Each record and each skipped row as it comes, so that both keep the file's order.
    on_record: (fields, context) => {
      rows.push({ line: context.lines, fields });
      return null;
    },
    on_skip: (err) => {
      const line: unknown = err?.lines;
      rows.push({ line: typeof line === 'number' ? line : NaN, why: err?.message ?? 'unreadable row' });
      return undefined;
    },
  });
  checkRowCount(rows.length);
  return { header, rows };
}

/** Where a row of a CSV is: "line 12" ("line ?" when the parser could not say). */
export const lineOf = (line: number): string => `line ${Number.isNaN(line) ? '?' : line}`;
