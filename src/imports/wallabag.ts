import * as z from 'zod';
import { readJsonItems } from './json.js';
import { type ParsedFile, type ParsedRow, emptyLink, fromDateText, isBadRow } from './record.js';

/** 0/1, true/false or "0"/"1", as Wallabag's versions wrote them. */
const flag = z.union([z.boolean(), z.number(), z.string()]).nullish();
const on = (v: z.infer<typeof flag>): boolean => v === true || v === 1 || v === '1' || v === 'true';

/** One entry of Wallabag's JSON export (the fields it kept; the rest are ignored). */
const WallabagEntry = z.object({
  title: z.string().nullish(),
  url: z.string(),
  content: z.string().nullish(),
  is_archived: flag,
  is_starred: flag,
  tags: z.array(z.union([z.string(), z.object({ label: z.string() })])).nullish(),
  created_at: z.string().nullish(),
  published_by: z.union([z.array(z.string()), z.string()]).nullish(),
  published_at: z.string().nullish(),
  reading_time: z.number().nullish(),
  preview_picture: z.string().nullish(),
});

/** Wallabag's JSON export: its content kept; starred is the tag "starred". Entries are read as iterated. */
export const parseWallabagJson = (bytes: Uint8Array): ParsedFile => ({
  format: 'wallabag',
  rows: wallabagRows(bytes),
});

function* wallabagRows(bytes: Uint8Array): Generator<ParsedRow> {
  for (const row of readJsonItems(bytes, WallabagEntry, 'entries')) {
    if (isBadRow(row)) {
      yield row;
      continue;
    }
    const { where, item } = row;
    const tags = (item.tags ?? []).map((t) => (typeof t === 'string' ? t : t.label));
    if (on(item.is_starred)) tags.push('starred');
    const by = item.published_by;
    yield {
      where,
      link: {
        ...emptyLink(item.url),
        title: item.title ?? '',
        savedAt: fromDateText(item.created_at),
        tags,
        archived: on(item.is_archived),
        html: item.content ?? null,
        author: (Array.isArray(by) ? by.join(', ') : (by ?? '')).trim() || null,
        publishedAt: fromDateText(item.published_at),
      },
    };
  }
}

/** A JSON array of objects with Wallabag's fields (`head`: the file's start). */
export const looksLikeWallabag = (head: string): boolean => /"is_archived"\s*:/.test(head);
