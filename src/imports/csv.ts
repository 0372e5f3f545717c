import { parse } from 'csv-parse/sync';
import { type BadRow, checkRowCount, unreadable } from './record.js';

/** A CSV's rows as objects keyed by its header (lower-cased), each with the line it starts on. */
export interface CsvRows {
  header: string[];
  rows: { line: number; fields: Record<string, string> }[];
  bad: BadRow[];
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
  const bad: BadRow[] = [];
  const records = parse<{ record: Record<string, string>; info: { lines: number } }>(text, {
    bom: true,
    columns: (names: string[]) => names.map((n) => n.trim().toLowerCase()),
    info: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    max_record_size: 1024 * 1024,
    on_skip: (err) => {
      const line: unknown = err?.lines;
      bad.push({
        where: `line ${typeof line === 'number' ? line : '?'}`,
        why: err?.message ?? 'unreadable row',
      });
      return undefined;
    },
  });
  checkRowCount(records.length + bad.length);
  return {
    header,
    rows: records.map((r) => ({ line: r.info.lines, fields: r.record })),
    bad,
  };
}
