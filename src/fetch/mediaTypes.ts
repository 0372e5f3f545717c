import { fileTypeFromBuffer } from 'file-type';

/*
 * What the media proxy serves (src/fetch/media.ts): raster images only, of the types every browser and mail
 * client draws. SVG is refused, not served under a strict policy: an SVG is a document that can carry
 * script and links, opened on its own (a click on "open image in new tab") it would run as Tidings' own
 * origin unless every answer carried the right policy forever; the sanitisers refuse it already for the
 * same reason (src/articles/sanitize.ts), and mail clients that would draw it are few. A refused image is
 * the image left out, with its alt text.
 *
 * The type is decided by the bytes: the server's Content-Type must not say something else (text/html,
 * image/svg+xml, application/json… are refused even when the bytes look like a picture), and the type
 * served is the one the bytes are, sniffed by file-type (magic numbers; an empty or unknown body is not an
 * image).
 */

/** The media types served, as file-type names them. */
export const MEDIA_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/apng',
  'image/gif',
  'image/webp',
  'image/avif',
]);

/** The Accept header of the proxy's fetches. */
export const MEDIA_ACCEPT = 'image/avif, image/webp, image/apng, image/png, image/jpeg, image/gif;q=0.9';

/** Declared types that say nothing about the bytes: the sniffing decides. */
const UNDECLARED = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/binary']);

/** Why a body is not served; null when it is an image the proxy serves. */
export function declaredRefusal(contentType: string | null): string | null {
  const declared = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (UNDECLARED.has(declared)) return null;
  if (declared === 'image/svg+xml') return 'it is an SVG image, which Tidings does not serve';
  if (declared.startsWith('image/')) return null;
  return `it is ${declared}, not an image`;
}

/** The type the bytes are when it is one the proxy serves; null otherwise. */
export async function sniffedImageType(body: Uint8Array): Promise<string | null> {
  if (body.length === 0) return null;
  const found = await fileTypeFromBuffer(body);
  return found !== undefined && MEDIA_TYPES.has(found.mime) ? found.mime : null;
}
