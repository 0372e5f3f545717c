import { escapeUTF8 } from 'entities';

/**
 * OPML subscription lists: reading one another feed reader exported, and writing Tidings' own.
 *
 * Not feedsmith's OPML functions: its parser answers the same "Invalid OPML format" for an OPML file with no
 * outlines and for a document that is not OPML at all, and its generator refuses a body without outlines, so
 * an account with no subscriptions could not be exported. Reading (opmlRead.ts) uses fast-xml-parser (which
 * feedsmith runs on) directly, in the thread that reads an import (opmlThread.ts), so a server that never
 * imports a list never loads it (issue 26); writing is done by hand, see generateOpml.
 */

/** One feed of a subscription list. */
export interface OpmlOutline {
  /** The feed's address (xmlUrl), trimmed but otherwise as written: subscribing checks it when it fetches. */
  url: string;
  /** The outline's text, else its title, else the URL. */
  title: string;
  /** The site the feed belongs to (htmlUrl), or null. */
  htmlUrl: string | null;
  /** The titles of the enclosing outlines, outermost first, joined with " / "; null at the top level. */
  folder: string | null;
}

/** What an OPML file lists: its feeds, and how many outlines it skipped for want of a feed address. */
export interface OpmlList {
  outlines: OpmlOutline[];
  /** Outlines with no xmlUrl and no outline inside (not a feed, not a folder of any): skipped, counted. */
  withoutUrl: number;
}

/** One feed to export. */
export interface OpmlFeed {
  url: string;
  title: string;
  siteUrl: string | null;
  /** Nested folders are written as one string, their titles joined with " / ", as parseOpml returns them. */
  folder?: string | null;
}

export interface GenerateOpmlOptions {
  /** The document's title, shown by some readers when importing. */
  title: string;
  /** When the document was made (dateCreated); now by default. */
  now?: Date;
}

/** Real subscription lists are a few kilobytes; a thousand feeds is about 200 KiB. */
export const MAX_OPML_BYTES = 5 * 1024 * 1024;

export const FOLDER_SEPARATOR = ' / ';

/** A folder of the export, with its feeds and subfolders in the order they first appear. */
interface Folder {
  title: string;
  subfolders: Map<string, Folder>;
  entries: Array<{ kind: 'folder'; folder: Folder } | { kind: 'feed'; feed: OpmlFeed }>;
}

/**
 * An OPML 2.0 subscription list. Feeds are grouped into nested outlines by folder (split on " / "), keeping
 * the order in which feeds and folders first appear, so parseOpml reads back the same URLs, titles and
 * folders. Characters XML cannot carry (most control characters) are dropped.
 *
 * Written out by hand: the document has four kinds of element, and every value goes through escapeUTF8,
 * which escapes the five characters XML reserves.
 */
export function generateOpml(feeds: readonly OpmlFeed[], opts: GenerateOpmlOptions): string {
  const root = newFolder('');
  for (const feed of feeds) folderAt(root, folderPath(feed.folder)).entries.push({ kind: 'feed', feed });
  const body =
    root.entries.length === 0 ? ['  <body/>'] : ['  <body>', ...outlineLines(root, 2), '  </body>'];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<opml version="2.0">',
    '  <head>',
    `    <title>${escapeUTF8(xmlText(opts.title))}</title>`,
    `    <dateCreated>${(opts.now ?? new Date()).toUTCString()}</dateCreated>`,
    '  </head>',
    ...body,
    '</opml>',
    '',
  ].join('\n');
}

function newFolder(title: string): Folder {
  return { title, subfolders: new Map(), entries: [] };
}

function folderPath(folder: string | null | undefined): string[] {
  if (folder == null) return [];
  return folder
    .split(FOLDER_SEPARATOR)
    .map(xmlText)
    .filter((title) => title !== '');
}

function folderAt(root: Folder, path: readonly string[]): Folder {
  let folder = root;
  for (const title of path) {
    let sub = folder.subfolders.get(title);
    if (sub === undefined) {
      sub = newFolder(title);
      folder.subfolders.set(title, sub);
      folder.entries.push({ kind: 'folder', folder: sub });
    }
    folder = sub;
  }
  return folder;
}

/** A folder's outlines, indented two spaces a level. A folder exists only once a feed is put in it. */
function outlineLines(folder: Folder, depth: number): string[] {
  const indent = '  '.repeat(depth);
  return folder.entries.flatMap((entry) => {
    if (entry.kind === 'feed') return [`${indent}<outline${attributes(feedAttributes(entry.feed))}/>`];
    const { title } = entry.folder;
    return [
      `${indent}<outline${attributes({ text: title, title })}>`,
      ...outlineLines(entry.folder, depth + 1),
      `${indent}</outline>`,
    ];
  });
}

/** text is the attribute OPML 2.0 requires; title too, because some readers show only that one. */
function feedAttributes(feed: OpmlFeed): Record<string, string> {
  const url = xmlText(feed.url);
  const title = xmlText(feed.title) || url;
  const siteUrl = feed.siteUrl === null ? '' : xmlText(feed.siteUrl);
  return { type: 'rss', text: title, title, xmlUrl: url, ...(siteUrl === '' ? {} : { htmlUrl: siteUrl }) };
}

function attributes(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${escapeUTF8(value)}"`)
    .join('');
}

/** Characters outside XML 1.0's Char production, lone surrogates included, which no parser would accept. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** One line of text XML can carry; escapeUTF8 then escapes the reserved characters. */
function xmlText(value: string): string {
  return value.replace(NOT_XML_CHAR, '').replace(/\s+/g, ' ').trim();
}
