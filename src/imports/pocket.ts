import { Parser } from 'htmlparser2';
import { lineOf, readCsv } from './csv.js';
import { checkNesting } from './markup.js';
import {
  type ImportedLink,
  type ParsedFile,
  type ParsedRow,
  checkRowCount,
  emptyLink,
  fromUnixSeconds,
  splitTags,
  unreadable,
} from './record.js';
import { readZip } from './zip.js';

/** Pocket's CSV header (2024–2025 exports). */
export const POCKET_COLUMNS = ['title', 'url', 'time_added', 'tags', 'status'] as const;

/** `title,url,time_added,tags,status`: time_added Unix seconds, tags separated by `|`, status unread/archive. */
export function parsePocketCsv(text: string, file = ''): ParsedFile & { rows: ParsedRow[] } {
  const at = (line: number) => (file === '' ? lineOf(line) : `${file} ${lineOf(line)}`);
  const out: ParsedRow[] = [];
  for (const row of readCsv(text, ['url']).rows) {
    if ('why' in row) {
      out.push({ where: at(row.line), why: row.why });
      continue;
    }
    const { line, fields } = row;
    const url = fields.url?.trim() ?? '';
    if (url === '') {
      out.push({ where: at(line), why: 'no url' });
      continue;
    }
    out.push({
      where: at(line),
      link: {
        ...emptyLink(url),
        title: fields.title ?? '',
        savedAt: fromUnixSeconds(fields.time_added),
        tags: splitTags(fields.tags, '|'),
        archived: (fields.status ?? '').trim().toLowerCase() === 'archive',
      },
    });
  }
  return { format: 'pocket', rows: out };
}

/** Pocket's zip: several CSVs of that layout (part_000000.csv, …), read in name order. */
export function parsePocketZip(bytes: Uint8Array): ParsedFile {
  const files = readZip(bytes, (name) => name.toLowerCase().endsWith('.csv'));
  if (files.size === 0) throw unreadable('The zip holds no CSV file: it is not a Pocket export.');
  const rows: ParsedRow[] = [];
  for (const [name, data] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    for (const row of parsePocketCsv(Buffer.from(data).toString('utf8'), name).rows) rows.push(row);
    checkRowCount(rows.length);
  }
  return { format: 'pocket', rows };
}

/**
 * Pocket's older `ril_export.html`: `<h1>Unread</h1><ul><li><a href time_added tags>title</a></li></ul>`
 * then `<h1>Read Archive</h1>` and its list. Tags are comma-separated. A file that nests deeper than
 * IMPORT_LIMITS.nesting is refused before it is parsed.
 */
export function parsePocketHtml(html: string): ParsedFile {
  checkNesting(html);
  const rows: ParsedRow[] = [];
  let archived = false;
  let heading: string | null = null;
  let open: ImportedLink | null = null;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'h1') heading = '';
        if (name !== 'a') return;
        const n = rows.length + 1;
        checkRowCount(n);
        const href = attrs.href?.trim() ?? '';
        if (href === '') {
          rows.push({ where: `link ${n}`, why: 'no href' });
          return;
        }
        open = {
          ...emptyLink(href),
          savedAt: fromUnixSeconds(attrs.time_added),
          tags: splitTags(attrs.tags, ','),
          archived,
        };
      },
      ontext(text) {
        if (heading !== null) heading += text;
        if (open !== null) open.title += text;
      },
      onclosetag(name) {
        if (name === 'h1' && heading !== null) {
          archived = /archive|read/i.test(heading) && !/unread/i.test(heading);
          heading = null;
        }
        if (name === 'a' && open !== null) {
          rows.push({ where: `link ${rows.length + 1}`, link: open });
          open = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return { format: 'pocket', rows };
}
