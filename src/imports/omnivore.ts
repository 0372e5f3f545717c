import * as z from 'zod';
import { readJsonItems } from './json.js';
import { type ParsedFile, type ParsedRow, emptyLink, fromDateText, isBadRow, unreadable } from './record.js';
import { readZip } from './zip.js';

const nullableText = z.string().nullish();

/** One item of Omnivore's `metadata_*.json` (the fields it kept; the rest are ignored). */
const OmnivoreItem = z.object({
  id: z.string().nullish(),
  slug: z.string().nullish(),
  title: nullableText,
  url: z.string(),
  labels: z.array(z.union([z.string(), z.object({ name: z.string() })])).nullish(),
  savedAt: nullableText,
  state: nullableText,
  description: nullableText,
  author: nullableText,
  publishedAt: nullableText,
  thumbnail: nullableText,
});

const isMetadata = (name: string): boolean => /(^|\/)metadata_[^/]*\.json$/i.test(name);
const isContent = (name: string): boolean => /(^|\/)content\/[^/]+\.html$/i.test(name);

/** The zip holds Omnivore's metadata files. */
export const looksLikeOmnivore = (names: Iterable<string>): boolean => [...names].some(isMetadata);

/**
 * Omnivore's export zip: `metadata_*.json` (arrays of items) and `content/<slug>.html` (or `<id>.html`),
 * whose readable HTML is kept with the item. State "Archived" is archived; labels are tags. The items are
 * read as iterated, each with its content made text only then.
 */
export function parseOmnivoreZip(bytes: Uint8Array): ParsedFile {
  const files = readZip(bytes, (name) => isMetadata(name) || isContent(name));
  const content = new Map<string, Uint8Array>();
  for (const [name, data] of files) {
    if (isContent(name)) content.set((name.split('/').pop() ?? '').replace(/\.html$/i, ''), data);
  }
  const metadata = [...files.keys()].filter(isMetadata).sort();
  if (metadata.length === 0)
    throw unreadable('The zip has no metadata_*.json: it is not an Omnivore export.');
  const html = (item: z.infer<typeof OmnivoreItem>): string | null => {
    const data = content.get(item.slug ?? '') ?? content.get(item.id ?? '');
    return data === undefined ? null : utf8(data);
  };
  function* rows(): Generator<ParsedRow> {
    for (const name of metadata) {
      yield* parseOmnivoreJson(files.get(name) ?? new Uint8Array(), name, html).rows;
    }
  }
  return { format: 'omnivore', rows: rows() };
}

/** Bytes as UTF-8 text, without copying them first. */
const utf8 = (data: Uint8Array): string =>
  Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');

/** One metadata file, its items read as iterated; `html` finds an item's content file. */
export function parseOmnivoreJson(
  bytes: Uint8Array,
  label: string,
  html: (item: z.infer<typeof OmnivoreItem>) => string | null = () => null,
): ParsedFile {
  function* rows(): Generator<ParsedRow> {
    for (const row of readJsonItems(bytes, OmnivoreItem, label)) {
      if (isBadRow(row)) {
        yield row;
        continue;
      }
      const { where, item } = row;
      yield {
        where,
        link: {
          ...emptyLink(item.url),
          title: item.title ?? '',
          savedAt: fromDateText(item.savedAt),
          tags: (item.labels ?? []).map((l) => (typeof l === 'string' ? l : l.name)),
          archived: (item.state ?? '').toLowerCase() === 'archived',
          html: html(item),
          description: item.description ?? null,
          author: item.author ?? null,
          publishedAt: fromDateText(item.publishedAt),
        },
      };
    }
  }
  return { format: 'omnivore', rows: rows() };
}
