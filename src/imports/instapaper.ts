import { lineOf, readCsv } from './csv.js';
import { type ParsedFile, type ParsedRow, emptyLink, fromUnixSeconds } from './record.js';

/**
 * Instapaper's CSV: old `URL,Title,Selection,Folder`, new `URL,Title,Selection,Folder,Timestamp,Tags` (Unix
 * seconds; tags a JSON array of names). Folder "Archive" is archived; "Unread" is unread; "Starred" is
 * unread with the tag "starred"; any other folder is unread with the folder's name as a tag.
 */
export function parseInstapaperCsv(text: string): ParsedFile {
  const out: ParsedRow[] = [];
  for (const row of readCsv(text, ['url', 'title', 'folder']).rows) {
    const where = lineOf(row.line);
    if ('why' in row) {
      out.push({ where, why: row.why });
      continue;
    }
    const { fields } = row;
    const url = fields.url?.trim() ?? '';
    if (url === '') {
      out.push({ where, why: 'no URL' });
      continue;
    }
    const tags = jsonTags(fields.tags);
    if (tags === null) {
      out.push({ where, why: 'Tags is not a JSON array of names' });
      continue;
    }
    const folder = (fields.folder ?? '').trim();
    const archived = folder.toLowerCase() === 'archive';
    if (!archived && folder !== '' && folder.toLowerCase() !== 'unread') tags.push(folder);
    out.push({
      where,
      link: {
        ...emptyLink(url),
        title: fields.title ?? '',
        savedAt: fromUnixSeconds(fields.timestamp),
        tags,
        archived,
        description: (fields.selection ?? '').trim() || null,
      },
    });
  }
  return { format: 'instapaper', rows: out };
}

/** The Tags column: '' or absent is none; a JSON array of strings (or of {name}); else null. */
function jsonTags(value: string | undefined): string[] | null {
  if (value === undefined || value.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const tags: string[] = [];
  for (const t of parsed as unknown[]) {
    if (typeof t === 'string') tags.push(t);
    else if (typeof t === 'object' && t !== null && typeof (t as { name?: unknown }).name === 'string') {
      tags.push((t as { name: string }).name);
    } else return null;
  }
  return tags;
}
