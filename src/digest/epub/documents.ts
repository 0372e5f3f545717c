import { type Locale, localeOf } from '../../i18n/locale.js';
import type { Book, BookEntry, BookSection } from './book.js';
import { LANGUAGE, escapeAttribute, safeHref, toXhtml, xmlText } from './xhtml.js';

/*
 * The content documents of a digest's EPUB: the cover, the nav document (the table of contents by
 * section), a page per section listing its entries, a chapter per entry whose page was read, and toc.ncx
 * for reading systems older than EPUB 3. Every name and text goes through xmlText; article bodies through
 * toXhtml.
 */

/** A file of the book, under EPUB/ in the container. */
export interface BookFile {
  /** Relative to the package document. */
  href: string;
  id: string;
  mediaType: string;
  body: string;
  /** In the spine (reading order). */
  spine: boolean;
  properties?: string;
  /** A binary file's bytes (an image); `body` is then empty. */
  bytes?: Uint8Array;
}

const XHTML = 'application/xhtml+xml';

/** Every document of the book, the spine's in reading order. */
export function bookFiles(book: Book): BookFile[] {
  const flat = book.kind === 'article';
  const images = new Map((book.images ?? []).map((i) => [i.src, i.href]));
  const files: BookFile[] = [
    { href: 'style.css', id: 'css', mediaType: 'text/css', body: STYLE, spine: false },
    { href: 'cover.xhtml', id: 'cover', mediaType: XHTML, body: cover(book), spine: true },
    { href: 'nav.xhtml', id: 'nav', mediaType: XHTML, body: nav(book), spine: true, properties: 'nav' },
    { href: 'toc.ncx', id: 'ncx', mediaType: 'application/x-dtbncx+xml', body: ncx(book), spine: false },
  ];
  book.sections.forEach((section, i) => {
    const s = i + 1;
    if (!flat) {
      const body = sectionPage(book, section, s);
      files.push({ href: sectionHref(s), id: `s${s}`, mediaType: XHTML, body, spine: true });
    }
    section.entries.forEach((entry, j) => {
      const href = chapterHref(s, j + 1);
      const body = chapter(book, entry, images);
      files.push({ href, id: `s${s}-${j + 1}`, mediaType: XHTML, body, spine: true });
    });
  });
  (book.images ?? []).forEach((image, i) => {
    const { href, mediaType, bytes } = image;
    files.push({ href, id: `img${i + 1}`, mediaType, body: '', bytes, spine: false });
  });
  return files;
}

const sectionHref = (s: number): string => `s${s}.xhtml`;
const chapterHref = (s: number, e: number): string => `s${s}-${e}.xhtml`;

/** A document of the book: in the book's language and direction unless `lang` (an article's) says otherwise. */
function page(book: Book, title: string, body: string, lang?: string, dir: string | null = null): string {
  const own = lang === undefined;
  const direction = own ? book.dir : dir;
  const d = direction === 'rtl' || (direction === 'ltr' && !own) ? ` dir="${direction}"` : '';
  lang ??= book.language;
  const untitled = localeOf(book.language).t('list.untitled');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE html>',
    `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="${lang}" lang="${lang}"${d}>`,
    `<head><meta charset="UTF-8"/><title>${label(title, untitled)}</title>`,
    '<link rel="stylesheet" type="text/css" href="style.css"/></head>',
    `<body>${body}</body>`,
    '</html>',
    '',
  ].join('\n');
}

function cover(book: Book): string {
  const t = localeOf(book.language);
  if (book.kind === 'article') {
    const lines = (book.coverLines ?? []).filter((l) => l.trim() !== '');
    return page(
      book,
      book.title,
      [
        '<section epub:type="cover" class="cover">',
        `<p class="brand">${xmlText(t.t('brand'))}</p>`,
        `<h1>${label(book.title, t.t('list.untitled'))}</h1>`,
        ...lines.map((l) => `<p>${xmlText(l)}</p>`),
        '</section>',
      ].join('\n'),
    );
  }
  const { items, entries, articles } = book.counts;
  const held =
    entries < items
      ? t.t('epub.cover.part', { entries, items, articles })
      : t.t('epub.cover.all', { items, articles });
  return page(
    book,
    book.title,
    [
      '<section epub:type="cover" class="cover">',
      `<p class="brand">${xmlText(t.t('brand'))}</p>`,
      `<h1>${xmlText(t.capitalized(book.dateLabel))}</h1>`,
      `<p>${xmlText(held)}</p>`,
      '</section>',
    ].join('\n'),
  );
}

function nav(book: Book): string {
  const t = localeOf(book.language);
  const untitled = t.t('list.untitled');
  const label = (text: string): string => labelOf(text, untitled);
  const sections = book.sections.map((section, i) => {
    const s = i + 1;
    if (book.kind === 'article') {
      return section.entries
        .map((entry, j) => `<li><a href="${chapterHref(s, j + 1)}">${label(entry.title)}</a></li>`)
        .join('\n');
    }
    const entries = section.entries.map(
      (entry, j) => `<li><a href="${chapterHref(s, j + 1)}">${label(entry.title)}</a></li>`,
    );
    const list = entries.length === 0 ? '' : `\n<ol>\n${entries.join('\n')}\n</ol>\n`;
    return `<li><a href="${sectionHref(s)}">${label(section.title)}</a>${list}</li>`;
  });
  return page(
    book,
    t.t('epub.contents'),
    [
      '<nav epub:type="toc" id="toc">',
      `<h1>${xmlText(t.t('epub.contents'))}</h1>`,
      '<ol>',
      `<li><a href="cover.xhtml">${xmlText(t.t('epub.cover'))}</a></li>`,
      ...sections,
      '</ol>',
      '</nav>',
    ].join('\n'),
  );
}

/** A table of contents' label: never empty (EPUBCheck refuses an empty one). */
const labelOf = (text: string, untitled: string): string => xmlText(text.trim()) || xmlText(untitled);
const label = labelOf;

function sectionPage(book: Book, section: BookSection, s: number): string {
  const t = localeOf(book.language);
  const untitled = t.t('list.untitled');
  const entries = section.entries.map((entry, j) => {
    const meta = metaLine(entry, null, t);
    return [
      `<div class="entry">`,
      `<h2><a href="${chapterHref(s, j + 1)}">${label(entry.title, untitled)}</a></h2>`,
      meta === '' ? '' : `<p class="meta">${meta}</p>`,
      entry.excerpt === '' ? '' : `<p>${xmlText(entry.excerpt)}</p>`,
      '</div>',
    ].join('');
  });
  const more =
    section.more > 0
      ? `<p class="more">${xmlText(t.t('epub.more', { count: section.more, title: section.title }))}</p>`
      : '';
  return page(
    book,
    section.title,
    [`<h1>${label(section.title, untitled)}</h1>`, ...entries, more].join('\n'),
  );
}

/** "Site · By Author · 6 min read", escaped; "" when there is nothing to say. */
function metaLine(entry: BookEntry, author: string | null, t: Locale): string {
  const byline = author?.trim() ?? '';
  const site = entry.article?.siteName?.trim() || entry.site;
  return [
    site,
    byline === '' ? '' : t.t('epub.by', { author: byline }),
    entry.readingTime ?? '',
    entry.saved ?? '',
  ]
    .filter((x) => x !== '')
    .map(xmlText)
    .join(' · ');
}

function originalLink(entry: BookEntry, words: string): string {
  const href = entry.href === null ? null : safeHref(entry.href);
  return href === null ? '' : `<p class="link"><a href="${escapeAttribute(href)}">${xmlText(words)}</a></p>`;
}

/** An entry's chapter: its article's reading view, or (not read) its summary and link. */
function chapter(book: Book, entry: BookEntry, images: ReadonlyMap<string, string>): string {
  const t = localeOf(book.language);
  const article = entry.article;
  const meta = metaLine(entry, article?.author ?? null, t);
  const head = [
    `<h1>${label(entry.title, t.t('list.untitled'))}</h1>`,
    meta === '' ? '' : `<p class="meta">${meta}</p>`,
  ];
  if (article === null) {
    return page(
      book,
      entry.title,
      [
        '<div class="article">',
        ...head,
        entry.excerpt === '' ? '' : `<p>${xmlText(entry.excerpt)}</p>`,
        originalLink(entry, t.t('epub.notRead')),
        '</div>',
      ].join('\n'),
    );
  }
  const lang = article.language !== null && LANGUAGE.test(article.language) ? article.language : 'en';
  return page(
    book,
    entry.title,
    [
      '<div class="article">',
      ...head,
      originalLink(entry, t.t('epub.original')),
      '<hr/>',
      `<div class="body">${toXhtml(article.html, { images })}</div>`,
      '</div>',
    ].join('\n'),
    lang,
    article.direction,
  );
}

function ncx(book: Book): string {
  const t = localeOf(book.language);
  const untitled = t.t('list.untitled');
  let order = 0;
  const point = (href: string, text: string, inner = ''): string => {
    order++;
    return `<navPoint id="p${order}" playOrder="${order}"><navLabel><text>${label(text, untitled)}</text></navLabel><content src="${href}"/>${inner}</navPoint>`;
  };
  const points = [point('cover.xhtml', t.t('epub.cover'))];
  book.sections.forEach((section, i) => {
    const s = i + 1;
    if (book.kind === 'article') {
      section.entries.forEach((entry, j) => points.push(point(chapterHref(s, j + 1), entry.title)));
      return;
    }
    // Its entries' points are numbered after it: the play order is the reading order.
    const first = order + 1;
    order = first;
    const inner = section.entries.map((entry, j) => point(chapterHref(s, j + 1), entry.title)).join('');
    points.push(
      `<navPoint id="p${first}" playOrder="${first}"><navLabel><text>${label(section.title, untitled)}</text></navLabel><content src="${sectionHref(s)}"/>${inner}</navPoint>`,
    );
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1" xml:lang="${escapeAttribute(book.language)}">`,
    `<head><meta name="dtb:uid" content="${escapeAttribute(book.identifier)}"/><meta name="dtb:depth" content="2"/>`,
    '<meta name="dtb:totalPageCount" content="0"/><meta name="dtb:maxPageNumber" content="0"/></head>',
    `<docTitle><text>${xmlText(book.title)}</text></docTitle>`,
    `<navMap>${points.join('\n')}</navMap>`,
    '</ncx>',
    '',
  ].join('\n');
}

/** Plain and small: reading systems apply their own fonts and margins. */
const STYLE = `body { line-height: 1.5; }
h1 { font-size: 1.5em; margin: 0.5em 0; }
h2 { font-size: 1.15em; margin: 1em 0 0.25em; }
.meta { color: #555; font-size: 0.9em; margin: 0.25em 0; }
.link { font-size: 0.9em; }
.cover { text-align: center; margin-top: 30%; }
.cover .brand { font-size: 1.2em; letter-spacing: 0.1em; text-transform: uppercase; }
.more { font-style: italic; }
pre { white-space: pre-wrap; }
table { border-collapse: collapse; }
td, th { border: 1px solid #999; padding: 0.2em 0.4em; vertical-align: top; }
img { max-width: 100%; height: auto; }
`;
