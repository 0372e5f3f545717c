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
      const body = sectionPage(section, s);
      files.push({ href: sectionHref(s), id: `s${s}`, mediaType: XHTML, body, spine: true });
    }
    section.entries.forEach((entry, j) => {
      const href = chapterHref(s, j + 1);
      const body = chapter(entry, images);
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

function page(title: string, body: string, lang = 'en', dir: string | null = null): string {
  const d = dir === 'rtl' || dir === 'ltr' ? ` dir="${dir}"` : '';
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE html>',
    `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="${lang}" lang="${lang}"${d}>`,
    `<head><meta charset="UTF-8"/><title>${label(title)}</title>`,
    '<link rel="stylesheet" type="text/css" href="style.css"/></head>',
    `<body>${body}</body>`,
    '</html>',
    '',
  ].join('\n');
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function cover(book: Book): string {
  if (book.kind === 'article') {
    const lines = (book.coverLines ?? []).filter((l) => l.trim() !== '');
    return page(
      book.title,
      [
        '<section epub:type="cover" class="cover">',
        '<p class="brand">Tidings</p>',
        `<h1>${label(book.title)}</h1>`,
        ...lines.map((l) => `<p>${xmlText(l)}</p>`),
        '</section>',
      ].join('\n'),
      book.language,
    );
  }
  const { items, entries, articles } = book.counts;
  const held =
    entries < items
      ? `${plural(entries, 'entry', 'entries')} of ${plural(items, 'item')}`
      : plural(items, 'item');
  return page(
    book.title,
    [
      '<section epub:type="cover" class="cover">',
      '<p class="brand">Tidings</p>',
      `<h1>${xmlText(book.dateLabel)}</h1>`,
      `<p>${held}; ${plural(articles, 'article')} to read here.</p>`,
      '</section>',
    ].join('\n'),
  );
}

function nav(book: Book): string {
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
    'Contents',
    [
      '<nav epub:type="toc" id="toc">',
      '<h1>Contents</h1>',
      '<ol>',
      '<li><a href="cover.xhtml">Cover</a></li>',
      ...sections,
      '</ol>',
      '</nav>',
    ].join('\n'),
  );
}

/** A table of contents' label: never empty (EPUBCheck refuses an empty one). */
const label = (text: string): string => xmlText(text.trim()) || 'Untitled';

function sectionPage(section: BookSection, s: number): string {
  const entries = section.entries.map((entry, j) => {
    const meta = metaLine(entry, null);
    return [
      `<div class="entry">`,
      `<h2><a href="${chapterHref(s, j + 1)}">${label(entry.title)}</a></h2>`,
      meta === '' ? '' : `<p class="meta">${meta}</p>`,
      entry.excerpt === '' ? '' : `<p>${xmlText(entry.excerpt)}</p>`,
      '</div>',
    ].join('');
  });
  const more =
    section.more > 0
      ? `<p class="more">And ${plural(section.more, 'more entry', 'more entries')} from ${xmlText(section.title)} on the digest's web page.</p>`
      : '';
  return page(section.title, [`<h1>${label(section.title)}</h1>`, ...entries, more].join('\n'));
}

/** "Site · By Author · 6 min read", escaped; "" when there is nothing to say. */
function metaLine(entry: BookEntry, author: string | null): string {
  const byline = author?.trim() ?? '';
  const site = entry.article?.siteName?.trim() || entry.site;
  return [site, byline === '' ? '' : `By ${byline}`, entry.readingTime ?? '', entry.saved ?? '']
    .filter((x) => x !== '')
    .map(xmlText)
    .join(' · ');
}

function originalLink(entry: BookEntry, words: string): string {
  const href = entry.href === null ? null : safeHref(entry.href);
  return href === null ? '' : `<p class="link"><a href="${escapeAttribute(href)}">${words}</a></p>`;
}

/** An entry's chapter: its article's reading view, or (not read) its summary and link. */
function chapter(entry: BookEntry, images: ReadonlyMap<string, string>): string {
  const article = entry.article;
  const meta = metaLine(entry, article?.author ?? null);
  const head = [`<h1>${label(entry.title)}</h1>`, meta === '' ? '' : `<p class="meta">${meta}</p>`];
  if (article === null) {
    return page(
      entry.title,
      [
        '<div class="article">',
        ...head,
        entry.excerpt === '' ? '' : `<p>${xmlText(entry.excerpt)}</p>`,
        originalLink(entry, 'Not read yet: the article on its site'),
        '</div>',
      ].join('\n'),
    );
  }
  const lang = article.language !== null && LANGUAGE.test(article.language) ? article.language : 'en';
  return page(
    entry.title,
    [
      '<div class="article">',
      ...head,
      originalLink(entry, 'The article on its site'),
      '<hr/>',
      `<div class="body">${toXhtml(article.html, { images })}</div>`,
      '</div>',
    ].join('\n'),
    lang,
    article.direction,
  );
}

function ncx(book: Book): string {
  let order = 0;
  const point = (href: string, text: string, inner = ''): string => {
    order++;
    return `<navPoint id="p${order}" playOrder="${order}"><navLabel><text>${label(text)}</text></navLabel><content src="${href}"/>${inner}</navPoint>`;
  };
  const points = [point('cover.xhtml', 'Cover')];
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
      `<navPoint id="p${first}" playOrder="${first}"><navLabel><text>${label(section.title)}</text></navLabel><content src="${sectionHref(s)}"/>${inner}</navPoint>`,
    );
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1" xml:lang="en">',
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
