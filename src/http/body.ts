import { MIMEType, TextDecoder } from 'node:util';
import busboy from 'busboy';
import iconv from 'iconv-lite';
import { ApiError } from './errors.js';

/** The API's parameters as read from a request body. */
export interface BodyParams {
  fields: Map<string, string>;
  /** Why the body's parameters were ignored, when they were; shown in a "url is required" message. */
  ignored?: string;
  /** A body that was read but is unacceptable (a file part, a non-string field…); reported after auth. */
  error?: ApiError;
}

const FIELDS = new Set(['url', 'title', 'api_key', 'apiKey']);
const MAX_PARTS = 32;

const ignored = (reason: string): BodyParams => ({ fields: new Map(), ignored: reason });
const malformed = (message: string): BodyParams => ({
  fields: new Map(),
  error: new ApiError('body_malformed', message),
});

/**
 * Reads url / title / api_key from a body according to its Content-Type (JSON, form, multipart; charset
 * honoured). A body that does not match its Content-Type, or has no or an unknown one, yields no
 * parameters, as the spec requires: the caller then reports what is missing. Never throws.
 */
export async function readBodyParams(contentType: string | undefined, body: Buffer): Promise<BodyParams> {
  if (body.length === 0) return { fields: new Map() };
  if (contentType === undefined || contentType.trim() === '')
    return ignored('the request has no Content-Type');
  const media = COMMON_TYPES.get(contentType) ?? parseMediaType(contentType);
  if (media === null) return ignored('the Content-Type header is not a valid media type');
  const { essence, charset } = media;
  if (essence === 'application/json' || essence.endsWith('+json')) return readJson(decode(body, charset));
  if (essence === 'application/x-www-form-urlencoded') return readForm(body, charset);
  if (essence === 'multipart/form-data') return readMultipart(contentType, body);
  return ignored(`the Content-Type ${essence} is not one the API reads (use JSON, form or multipart)`);
}

interface MediaType {
  essence: string;
  charset: string;
}

/** A Content-Type's essence and charset (UTF-8 unless given), or null when it is not a valid media type. */
function parseMediaType(contentType: string): MediaType | null {
  try {
    const mime = new MIMEType(contentType);
    return { essence: mime.essence, charset: mime.params.get('charset') ?? 'utf-8' };
  } catch {
    return null;
  }
}

/** The Content-Types clients send nearly always, parsed once (what parseMediaType makes of each). */
const COMMON_TYPES: ReadonlyMap<string, MediaType> = new Map(
  [
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=utf-8',
    'application/x-www-form-urlencoded;charset=UTF-8',
    'application/json',
    'application/json; charset=utf-8',
  ].map((t) => [t, parseMediaType(t) ?? { essence: t, charset: 'utf-8' }]),
);

type Decoded = { text: string } | { failure: BodyParams };

/** Decodes text in a charset: strictly for UTF-8, with iconv-lite for legacy ones. */
type Charset = (bytes: Buffer) => string;

/** Strict UTF-8 (throws on a malformed sequence); a decoder keeps no state between whole-buffer calls. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const decodeUtf8: Charset = (bytes) => UTF8.decode(bytes);

/**
 * Node 20's TextDecoder decodes windows-1252 (and its alias iso-8859-1) as ISO-8859-1, turning € and
 * curly quotes into control characters, so legacy charsets go through iconv-lite. UTF-8 stays strict.
 */
function charsetDecoder(charset: string): Charset | BodyParams {
  const name = charset.trim().toLowerCase();
  if (name === 'utf-8' || name === 'utf8' || name === 'unicode-1-1-utf-8') return decodeUtf8;
  if (!iconv.encodingExists(name)) return malformed(`unsupported charset: ${charset.slice(0, 40)}`);
  return (bytes) => iconv.decode(bytes, name);
}

function decode(body: Buffer, charset: string): Decoded {
  const decoder = charsetDecoder(charset);
  if (typeof decoder !== 'function') return { failure: decoder };
  try {
    return { text: decoder(body) };
  } catch {
    return { failure: ignored(`the body is not valid ${charset}`) };
  }
}

function readJson(decoded: Decoded): BodyParams {
  if ('failure' in decoded) return decoded.failure;
  let value: unknown;
  try {
    value = JSON.parse(decoded.text);
  } catch {
    return ignored('the body is not valid JSON, as its Content-Type says it is');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return malformed('a JSON body must be an object such as {"url": "https://example.com/"}');
  }
  const fields = new Map<string, string>();
  for (const [name, v] of Object.entries(value)) {
    if (!FIELDS.has(name) || v === null) continue;
    if (typeof v !== 'string') return malformed(`${name} must be a string`);
    fields.set(name, v);
  }
  return { fields };
}

function readForm(body: Buffer, charset: string): BodyParams {
  const decoder = charsetDecoder(charset);
  if (typeof decoder !== 'function') return decoder;
  const fields = new Map<string, string>();
  const text = body.toString('latin1'); // one char per byte: percent-decoding below works on bytes
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
    let name: string;
    let value: string;
    try {
      name = decoder(percentDecode(rawName));
      value = decoder(percentDecode(rawValue));
    } catch {
      return ignored(`the form body is not valid ${charset}`);
    }
    if (!FIELDS.has(name)) continue;
    if (fields.has(name)) return malformed(`${name} is given more than once`);
    fields.set(name, value);
  }
  return { fields };
}

/** application/x-www-form-urlencoded byte decoding: '+' is a space, %XX a byte, anything else as is. */
function percentDecode(s: string): Buffer {
  const bytes = Buffer.from(s, 'latin1');
  if (!s.includes('%') && !s.includes('+')) return bytes;
  const out = Buffer.allocUnsafe(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    const hi = b === 0x25 ? hexValue(bytes[i + 1]) : -1;
    const lo = hi === -1 ? -1 : hexValue(bytes[i + 2]);
    if (lo !== -1) {
      out[n++] = hi * 16 + lo;
      i += 2;
    } else {
      out[n++] = b === 0x2b ? 0x20 : b;
    }
  }
  return out.subarray(0, n);
}

/** A hex digit's value, or -1 (also for no byte at all). */
function hexValue(b: number | undefined): number {
  if (b === undefined) return -1;
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  return -1;
}

function readMultipart(contentType: string, body: Buffer): Promise<BodyParams> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: BodyParams): void => {
      if (!settled) {
        settled = true;
        resolve(result);
      }
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { fields: MAX_PARTS, parts: MAX_PARTS, fieldSize: body.length, fieldNameSize: 200 },
      });
    } catch {
      finish(ignored('the multipart Content-Type has no usable boundary'));
      return;
    }
    const fields = new Map<string, string>();
    let error: ApiError | undefined;
    parser.on('field', (name, value, info) => {
      if (!FIELDS.has(name)) return;
      if (info.valueTruncated) error ??= new ApiError('body_malformed', `${name} is too long`);
      else if (fields.has(name)) error ??= new ApiError('body_malformed', `${name} is given more than once`);
      else fields.set(name, value);
    });
    parser.on('file', (name, stream) => {
      // A truncated part errors on the file stream as well as on the parser: unhandled, it would kill the process.
      stream.on('error', () => undefined);
      stream.resume();
      error ??= new ApiError(
        'body_malformed',
        `file uploads are not accepted (part "${name.slice(0, 100)}")`,
      );
    });
    parser.on(
      'partsLimit',
      () => (error ??= new ApiError('body_malformed', `at most ${MAX_PARTS} parts are read`)),
    );
    parser.on(
      'fieldsLimit',
      () => (error ??= new ApiError('body_malformed', `at most ${MAX_PARTS} fields are read`)),
    );
    parser.on('error', () => finish(ignored('the body is not valid multipart/form-data')));
    parser.on('close', () => finish(error === undefined ? { fields } : { fields: new Map(), error }));
    parser.end(body);
  });
}
