import { createHash } from 'node:crypto';
import type { Entry, EntryTag } from '../../accounts/readingEntries.js';
import { shownTitle } from '../../lib/display.js';

/* An entry as wallabag's API writes one (its fields and formats), for the apps that read them. */

/** wallabag's date format: ISO 8601 with the offset written +0000. */
export function wallabagDate(iso: string | null): string | null {
  if (iso === null) return null;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return null;
  return `${new Date(t).toISOString().slice(0, 19)}+0000`;
}

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

/** A tag's slug: lower-case letters and digits, the rest as "-". */
export const slugOf = (label: string): string =>
  label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '') || 'tag';

export const tagJson = (t: EntryTag): { id: number; label: string; slug: string } => ({
  id: t.id,
  label: t.label,
  slug: slugOf(t.label),
});

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

export function entryJson(entry: Entry, full: boolean): Record<string, unknown> {
  const r = entry.row;
  const author = r.author ?? r.page_author;
  const hashed = sha1(r.url);
  return {
    is_archived: r.state === 'archived' ? 1 : 0,
    is_starred: r.starred_at === null ? 0 : 1,
    tags: entry.tags.map(tagJson),
    is_public: false,
    id: r.id,
    uid: null,
    title: shownTitle(r.title, r.url, { title: r.page_title }),
    url: r.url,
    hashed_url: hashed,
    origin_url: null,
    given_url: r.url,
    hashed_given_url: hashed,
    archived_at: wallabagDate(r.archived_at),
    content: full ? r.content : null,
    created_at: wallabagDate(r.saved_at),
    updated_at: wallabagDate(r.updated_at),
    published_at: wallabagDate(r.published_at ?? r.page_published_at),
    published_by: author === null || author === '' ? null : [author],
    starred_at: wallabagDate(r.starred_at),
    annotations: [],
    mimetype: r.media_type,
    language: r.language,
    reading_time: r.reading_minutes ?? 0,
    domain_name: hostOf(r.url),
    preview_picture: r.image_url,
    http_status: null,
    headers: null,
    _links: { self: { href: `/api/entries/${r.id}` } },
  };
}
