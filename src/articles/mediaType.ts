/** The essence of a Content-Type header ("text/html") and its charset parameter, lower-cased. */
export interface ContentType {
  mediaType: string | null;
  charset: string | null;
}

export function parseContentType(header: string | null): ContentType {
  if (header === null) return { mediaType: null, charset: null };
  const [essence = '', ...params] = header.slice(0, 1024).split(';');
  const type = essence.trim().toLowerCase();
  let charset: string | null = null;
  for (const param of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(param);
    if (m?.[1] !== undefined) charset = m[1].toLowerCase();
  }
  return { mediaType: /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) ? type : null, charset };
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** Types a server sends when it does not know better: the body decides (sniffedType). */
const UNKNOWN_TYPES = new Set(['application/octet-stream', 'binary/octet-stream', 'application/unknown']);

/** What the first bytes say, for a body whose Content-Type is missing or unknown. */
export function sniffedType(body: Uint8Array): string | null {
  const head = new TextDecoder('latin1').decode(body.subarray(0, 512));
  if (head.startsWith('%PDF-')) return 'application/pdf';
  if (head.startsWith('\x89PNG')) return 'image/png';
  if (head.startsWith('\xff\xd8\xff')) return 'image/jpeg';
  if (head.startsWith('GIF8')) return 'image/gif';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'image/webp';
  const text = head
    .replace(/^(?:\xef\xbb\xbf|\xfe\xff|\xff\xfe)/, '')
    .trimStart()
    .toLowerCase();
  return /^<(?:!doctype html|html|head|body|!--|meta|title|p[\s>]|div)/.test(text) ? 'text/html' : null;
}

/**
 * The media type a body is read as: the header's unless it is missing or says nothing (octet-stream),
 * then what the bytes look like. Whether it is HTML to extract text from, or a file to describe.
 */
export function effectiveType(
  header: ContentType,
  body: Uint8Array,
): { mediaType: string | null; html: boolean } {
  const declared = header.mediaType;
  const mediaType =
    declared === null || UNKNOWN_TYPES.has(declared) ? (sniffedType(body) ?? declared) : declared;
  return { mediaType, html: mediaType !== null && HTML_TYPES.has(mediaType) };
}
