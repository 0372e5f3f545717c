import { isUtf8 } from 'node:buffer';
import { MIMEType } from 'node:util';
import iconv from 'iconv-lite';
import { FeedParseError } from './model.js';

/** A feed's text and the encoding it was read in, with the step that chose it (for debugging). */
export interface DecodedText {
  text: string;
  encoding: string;
  source: 'bom' | 'http' | 'prolog' | 'sniffed' | 'fallback';
}

export interface DecodeOptions {
  /**
   * What a declared charset that iconv-lite does not know does: "error" throws FeedParseError
   * (`unsupported charset "x"`), as a feed gets; "ignore" goes on to the next step, as the WHATWG
   * Encoding Standard does for an HTML page's unknown label. Defaults to "ignore".
   */
  unknownCharset?: 'error' | 'ignore';
}

/**
 * Turns a feed's bytes into text. The first of these that applies wins: a byte order mark, the charset of
 * the HTTP Content-Type, the XML prolog's encoding, strict UTF-8, and windows-1252, which decodes any
 * byte (what browsers assume for undeclared legacy text). A declared UTF-8 is trusted: invalid bytes become
 * U+FFFD rather than the whole feed being re-read as windows-1252; any other declared charset is decoded as
 * declared, however little the bytes fit it.
 */
export function decodeFeedBytes(
  bytes: Uint8Array,
  contentType?: string,
  opts: DecodeOptions = {},
): DecodedText {
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bom = byteOrderMark(buffer);
  if (bom !== null) return { text: decodeAs(buffer, bom), encoding: bom, source: 'bom' };
  const strict = opts.unknownCharset === 'error';
  const http = supportedCharset(contentType === undefined ? undefined : httpCharset(contentType), strict);
  if (http !== null) return { text: decodeAs(buffer, http), encoding: http, source: 'http' };
  const prolog = supportedCharset(prologEncoding(buffer), strict);
  if (prolog !== null) return { text: decodeAs(buffer, prolog), encoding: prolog, source: 'prolog' };
  if (isUtf8(buffer)) return { text: buffer.toString('utf8'), encoding: 'utf-8', source: 'sniffed' };
  return { text: decodeAs(buffer, 'windows-1252'), encoding: 'windows-1252', source: 'fallback' };
}

function byteOrderMark(b: Buffer): string | null {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  // XML 1.0 appendix F: UTF-16 without a mark still starts with "<?" in two-byte units.
  if (b[0] === 0x3c && b[1] === 0x00 && b[2] === 0x3f && b[3] === 0x00) return 'utf-16le';
  if (b[0] === 0x00 && b[1] === 0x3c && b[2] === 0x00 && b[3] === 0x3f) return 'utf-16be';
  return null;
}

function httpCharset(contentType: string): string | undefined {
  try {
    return new MIMEType(contentType).params.get('charset') ?? undefined;
  } catch {
    return undefined; // an unparseable header says nothing about the bytes
  }
}

const PROLOG_ENCODING = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z][\w.:-]{0,39})["']/;

/** The prolog is ASCII in every encoding a prolog can be read in here, so latin1 reads it safely. */
function prologEncoding(bytes: Buffer): string | undefined {
  const head = bytes.toString('latin1', 0, 512);
  const name = PROLOG_ENCODING.exec(head)?.[1];
  // A prolog we could read as ASCII cannot truly be UTF-16 or UTF-32, whatever it says.
  return name !== undefined && /^(utf-?16|utf-?32|ucs-?[24])/i.test(name) ? undefined : name;
}

/**
 * The iconv-lite name for a declared charset, or null when none is declared. ISO-8859-1 and ASCII are read
 * as windows-1252, as the WHATWG Encoding Standard does: real "Latin-1" feeds use its curly quotes and
 * dashes, which ISO-8859-1 would turn into control characters. A label iconv-lite does not know throws
 * when `strict` (Miniflux refuses those too, through Go's charset.NewReaderLabel), else counts as none.
 */
function supportedCharset(declared: string | undefined, strict: boolean): string | null {
  const name = declared?.trim().toLowerCase();
  if (name === undefined || name === '') return null;
  if (/^(iso[-_]?8859-1|latin-?1|l1|(us-)?ascii|cp819)$/.test(name)) return 'windows-1252';
  if (name === 'utf8' || name === 'utf-8') return 'utf-8';
  if (iconv.encodingExists(name)) return name;
  if (strict)
    throw new FeedParseError(`unsupported charset ${JSON.stringify(declared?.trim().slice(0, 40))}`);
  return null;
}

/**
 * UTF-8 through Buffer#toString (invalid bytes become U+FFFD); everything else through iconv-lite, since
 * Node 20's TextDecoder reads windows-1252 as ISO-8859-1 (curly quotes become control characters). Both
 * paths drop a leading byte order mark.
 */
function decodeAs(bytes: Buffer, encoding: string): string {
  if (encoding !== 'utf-8') return iconv.decode(bytes, encoding);
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
