import iconv from 'iconv-lite';

/**
 * Labels that WHATWG's Encoding standard reads as another encoding: browsers show Latin-1 and ASCII pages
 * as windows-1252 (the "€" and curly quotes of 0x80–0x9f), and a <meta> that claims UTF-16 in bytes that
 * could be read to find it is wrong.
 */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ['iso-8859-1', 'windows-1252'],
  ['iso8859-1', 'windows-1252'],
  ['latin1', 'windows-1252'],
  ['l1', 'windows-1252'],
  ['us-ascii', 'windows-1252'],
  ['ascii', 'windows-1252'],
  ['x-user-defined', 'windows-1252'],
  ['utf-16', 'utf-8'],
  ['utf-16le', 'utf-8'],
  ['utf-16be', 'utf-8'],
  ['unicode-1-1-utf-8', 'utf-8'],
  ['x-sjis', 'shift_jis'],
]);

/** An encoding iconv-lite can decode for a declared label, or null for a label it does not know. */
export function encodingFor(label: string | null): string | null {
  if (label === null) return null;
  const trimmed = label.trim().toLowerCase();
  const name = ALIASES.get(trimmed) ?? trimmed;
  return name.length <= 40 && iconv.encodingExists(name) ? name : null;
}

function bomEncoding(body: Uint8Array): { encoding: string; length: number } | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (body[0] === 0xfe && body[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  if (body[0] === 0xff && body[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  return null;
}

/** How many bytes are searched for a <meta> charset: the standard's 1024, with room for long heads. */
const PRESCAN_BYTES = 4096;

/** The value of attribute `name` in one tag's text, or null. */
function attribute(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i').exec(tag);
  return m === null ? null : (m[1] ?? m[2] ?? m[3] ?? null);
}

/** The charset a `<meta charset>` or `<meta http-equiv="Content-Type" content="…charset=…">` declares. */
export function metaCharset(body: Uint8Array): string | null {
  const head = new TextDecoder('latin1')
    .decode(body.subarray(0, PRESCAN_BYTES))
    .replace(/<!--[\s\S]*?-->/g, '');
  for (const [tag] of head.matchAll(/<meta\s[^>]*>/gi)) {
    const charset = attribute(tag, 'charset');
    if (charset !== null) return charset;
    if (attribute(tag, 'http-equiv')?.trim().toLowerCase() === 'content-type') {
      const m = /charset\s*=\s*["']?([\w.:-]+)/i.exec(attribute(tag, 'content') ?? '');
      if (m?.[1] !== undefined) return m[1];
    }
  }
  return null;
}

/**
 * The text of an HTML body, in the order of precedence of the HTML standard: a byte order mark, then the
 * HTTP charset, then a <meta> in the first bytes, else UTF-8. A label nobody knows is passed over;
 * bytes that do not decode become U+FFFD. Never throws.
 */
export function decodeHtml(body: Uint8Array, httpCharset: string | null): { text: string; encoding: string } {
  const bom = bomEncoding(body);
  const encoding = bom?.encoding ?? encodingFor(httpCharset) ?? encodingFor(metaCharset(body)) ?? 'utf-8';
  const bytes = bom === null ? body : body.subarray(bom.length);
  try {
    return {
      text: iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding),
      encoding,
    };
  } catch {
    return { text: new TextDecoder('utf-8').decode(bytes), encoding: 'utf-8' };
  }
}
