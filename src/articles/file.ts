import { LIMITS, plain } from './clean.js';
import { siteOf } from './metadata.js';
import { emptyExtract, type PageExtract } from './types.js';

/**
 * The name a URL gives its file: the last non-empty path segment, percent-decoded when it decodes, with
 * its extension kept ("report.pdf" tells a reader what they will open); the host when the path has none.
 */
export function fileTitle(url: URL): string | null {
  const segment = url.pathname
    .split('/')
    .filter((s) => s !== '')
    .pop();
  if (segment === undefined) return plain(url.hostname, LIMITS.title);
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    // A lone "%" or broken UTF-8: the name as it stands.
  }
  return plain(name.replace(/\+/g, ' '), LIMITS.title);
}

/** A non-HTML answer (PDF, image, video, audio, anything else): its type, size, a title and the site. */
export function extractFile(url: URL | null, mediaType: string | null, byteLength: number): PageExtract {
  const extract = emptyExtract('file', mediaType, byteLength);
  if (url === null) return extract;
  return { ...extract, title: fileTitle(url), siteName: siteOf(url.href) };
}
