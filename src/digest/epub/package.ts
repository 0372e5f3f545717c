import { type Zippable, strToU8, zipSync } from 'fflate';
import { type Book, EPUB_MEDIA_TYPE } from './book.js';
import { type BookFile, bookFiles } from './documents.js';
import { escapeAttribute, xmlText } from './xhtml.js';

/*
 * The EPUB 3 container (OCF): a zip whose first entry is `mimetype`, stored uncompressed and without
 * extra fields, then META-INF/container.xml naming the package document, then the book's files under
 * EPUB/. Every entry is dated with the digest's build, so the same digest makes the same bytes.
 */

const CONTAINER = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>
`;

/** The EPUB file of a book. */
export function epubBytes(book: Book): Uint8Array {
  const files = bookFiles(book);
  // Zip times are local DOS times from 1980 on: the build's, never earlier.
  const mtime = new Date(Math.max(Date.parse(book.modified) || 0, Date.UTC(1980, 1, 1)));
  const zip: Zippable = {
    mimetype: [strToU8(EPUB_MEDIA_TYPE), { level: 0 }],
    'META-INF/container.xml': [strToU8(CONTAINER), {}],
    'EPUB/package.opf': [strToU8(packageDocument(book, files)), {}],
  };
  // Images are compressed already: stored as they are.
  for (const f of files) {
    zip[`EPUB/${f.href}`] = f.bytes === undefined ? [strToU8(f.body), {}] : [f.bytes, { level: 0 }];
  }
  return zipSync(zip, { level: 6, mtime });
}

function packageDocument(book: Book, files: readonly BookFile[]): string {
  const manifest = files.map((f) => {
    const props = f.properties === undefined ? '' : ` properties="${f.properties}"`;
    return `<item id="${f.id}" href="${escapeAttribute(f.href)}" media-type="${f.mediaType}"${props}/>`;
  });
  const spine = files.filter((f) => f.spine).map((f) => `<itemref idref="${f.id}"/>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid" xml:lang="${book.language}">`,
    '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">',
    `<dc:identifier id="uid">${xmlText(book.identifier)}</dc:identifier>`,
    `<dc:title>${xmlText(book.title)}</dc:title>`,
    `<dc:language>${book.language}</dc:language>`,
    '<dc:creator>Tidings</dc:creator>',
    `<dc:date>${book.localDate}</dc:date>`,
    `<meta property="dcterms:modified">${book.modified}</meta>`,
    '</metadata>',
    '<manifest>',
    ...manifest,
    '</manifest>',
    `<spine toc="ncx"${book.dir === 'rtl' ? ' page-progression-direction="rtl"' : ''}>`,
    ...spine,
    '</spine>',
    '</package>',
    '',
  ].join('\n');
}
