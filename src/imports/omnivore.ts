import { z } from 'zod';
import { readJsonItems } from './json.js';
import { type ParsedFile, checkRowCount, emptyLink, fromDateText, unreadable } from './record.js';
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
 * whose readable HTML is kept with the item. State "Archived" is archived; labels are tags.
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
  const out: ParsedFile = { format: 'omnivore', links: [], bad: [] };
  for (const name of metadata) {
    const text = Buffer.from(files.get(name) ?? new Uint8Array()).toString('utf8');
    const part = parseOmnivoreJson(text, name, (item) => {
      const data = content.get(item.slug ?? '') ?? content.get(item.id ?? '');
      return data === undefined ? null : Buffer.from(data).toString('utf8');
    });
    out.links.push(...part.links);
    out.bad.push(...part.bad);
    checkRowCount(out.links.length + out.bad.length);
  }
  return out;
}

/** One metadata file; `html` finds an item's content file. */
export function parseOmnivoreJson(
  text: string,
  label: string,
  html: (item: z.infer<typeof OmnivoreItem>) => string | null = () => null,
): ParsedFile {
  const { items, bad } = readJsonItems(text, OmnivoreItem, label);
  return {
    format: 'omnivore',
    bad,
    links: items.map(({ where, item }) => ({
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
    })),
  };
}
