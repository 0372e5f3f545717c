import { decodeHTMLStrict } from 'entities';
import { XMLParser } from 'fast-xml-parser';
import { TidingsError } from '../../errors.js';
import { withoutBidiControls } from '../../lib/bidi.js';
import { decodeFeedBytes } from '../parse/decode.js';
import { FOLDER_SEPARATOR, MAX_OPML_BYTES, type OpmlList, type OpmlOutline } from './opml.js';

/*
 * Reading an OPML subscription list (opml.ts has what it is and how Tidings writes one). Apart from the
 * writer because of fast-xml-parser, which only the thread that reads an import needs (opmlWorker.ts).
 */

/** Why a file could not be read as OPML (invalid_input); the message is meant for the person importing it. */
const opmlError = (message: string, options?: ErrorOptions): TidingsError =>
  new TidingsError('invalid_input', message, options);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  // Entities are left as written and decoded per attribute below. With entity processing on, the parser
  // would expand the entities the document declares in its own DTD, which is how a few hundred bytes of
  // "billion laughs" become gigabytes. A declared external (SYSTEM) entity makes the parser throw.
  processEntities: false,
  htmlEntities: false,
  parseAttributeValue: false,
  parseTagValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Tools differ in the case of names (xmlUrl, xmlURL, XMLURL); OPML means the same by all of them.
  transformTagName: (name) => name.toLowerCase(),
  transformAttributeName: (name) => name.toLowerCase(),
  isArray: (name) => name === 'outline',
  // The parser's default, restated because it also bounds the recursion in collectOutlines.
  maxNestedTags: 100,
});

/**
 * The feeds of an OPML subscription list, flattened in document order. Outlines without an xmlUrl are
 * folders: their text (or title) becomes part of the folder of the feeds inside them; an untitled one adds
 * nothing. The same feed listed in two folders is returned twice. Throws TidingsError invalid_input, and only that.
 */
export function parseOpml(input: Buffer | string): OpmlOutline[] {
  return parseOpmlList(input).outlines;
}

/** parseOpml, with the count of outlines skipped because they have no feed address and hold none. */
export function parseOpmlList(input: Buffer | string): OpmlList {
  try {
    const opml = opmlElement(readText(input));
    const list: OpmlList = { outlines: [], withoutUrl: 0 };
    collectOutlines(childOutlines(firstOf(opml['body'])), [], list);
    return list;
  } catch (err) {
    if (err instanceof TidingsError) throw err;
    // Uploads are whatever a person picked: anything that slipped through is still a file we cannot read.
    throw opmlError(`not a readable OPML file: ${messageOf(err)}`, { cause: err });
  }
}

function readText(input: Buffer | string): string {
  const size = typeof input === 'string' ? Buffer.byteLength(input) : input.byteLength;
  if (size > MAX_OPML_BYTES) {
    throw opmlError(`the file is ${mebibytes(size)}, more than the ${mebibytes(MAX_OPML_BYTES)} allowed`);
  }
  // Bytes are decoded as feeds are: byte order mark, then the XML declaration's encoding, then UTF-8, then
  // windows-1252, which old exports written as ISO-8859-1 without saying so need.
  const text = typeof input === 'string' ? input.replace(/^\uFEFF/, '') : decodeFeedBytes(input).text;
  if (text.trim() === '') throw opmlError('the file is empty');
  return text;
}

/**
 * The attributes and children of the <opml> root. The parser is forgiving, as feed readers must be with
 * files written by hand: it recovers from a mismatched closing tag. It throws for a tag or attribute left
 * unfinished, for a declared external entity, and for nesting deeper than maxNestedTags.
 */
function opmlElement(text: string): Record<string, unknown> {
  let document: unknown;
  try {
    document = parser.parse(text);
  } catch (err) {
    throw opmlError(`the OPML file could not be read as XML (${messageOf(err)})`, { cause: err });
  }
  const root = isRecord(document) ? Object.keys(document)[0] : undefined;
  if (root === undefined) throw opmlError('not an OPML file: no XML element found');
  if (root !== 'opml') throw opmlError(`not an OPML file: the document is <${root}>, not <opml>`);
  // <opml/> and <opml></opml> parse as "": a document with nothing in it.
  const opml = firstOf(isRecord(document) ? document['opml'] : undefined);
  if (!isRecord(opml)) return {};
  requireClosedRoot(text, opml);
  return opml;
}

/** </opml> last, but for white space and comments. */
const CLOSED_ROOT = /<\/opml\s*>(?:\s|<!--[\s\S]*?-->)*$/i;

/**
 * The parser also closes whatever is still open at the end of the text, so a file cut short in transfer
 * would import as a shorter list without a word: refused unless the root element is closed.
 */
function requireClosedRoot(text: string, opml: Record<string, unknown>): void {
  const hasContent = Object.keys(opml).some((key) => !key.startsWith('@'));
  if (hasContent && !CLOSED_ROOT.test(text.slice(-4096))) {
    throw opmlError('the OPML file ends before </opml>: it looks cut short');
  }
}

/** Depth-first, so feeds come out in document order; the parser's nesting limit bounds the depth. */
function collectOutlines(
  outlines: readonly Record<string, unknown>[],
  folders: readonly string[],
  into: OpmlList,
): void {
  for (const outline of outlines) {
    const label = attribute(outline, 'text') || attribute(outline, 'title');
    const url = attribute(outline, 'xmlurl');
    const children = childOutlines(outline);
    if (url === '' && children.length === 0) into.withoutUrl++;
    if (url !== '') {
      into.outlines.push({
        url,
        title: label || url,
        htmlUrl: attribute(outline, 'htmlurl') || null,
        folder: folders.length === 0 ? null : folders.join(FOLDER_SEPARATOR),
      });
    }
    if (children.length > 0) collectOutlines(children, label === '' ? folders : [...folders, label], into);
  }
}

/** An element's <outline> children; one without attributes or children parses as "" and is nothing. */
function childOutlines(element: unknown): Record<string, unknown>[] {
  const outlines = isRecord(element) ? element['outline'] : undefined;
  return Array.isArray(outlines) ? outlines.filter(isRecord) : [];
}

/**
 * An attribute as plain text, "" when absent. Entities are decoded only when they end with ";", as XML
 * requires; HTML's named ones (&eacute;) are decoded too, since hand-written OPML uses them. Whitespace is
 * collapsed: a parser would turn the line breaks of an attribute value into spaces anyway. Bidi controls
 * are dropped (lib/text.ts): a title is text.
 */
function attribute(outline: Record<string, unknown>, name: string): string {
  const value = outline[`@${name}`];
  return typeof value === 'string'
    ? withoutBidiControls(decodeHTMLStrict(value)).replace(/\s+/g, ' ').trim()
    : '';
}

function firstOf(value: unknown): unknown {
  return Array.isArray(value) ? (value as unknown[])[0] : value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MiB`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
