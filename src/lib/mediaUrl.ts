import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * The media proxy's links (docs/privacy.md): every remote image a digest, the digest's web page, its Atom
 * feed, the reading view or the queue shows is written as `${baseUrl}/media/SIGNATURE/ENCODED`, where
 * ENCODED is the image's absolute URL in base64url and SIGNATURE an HMAC-SHA256 of it (its first 128
 * bits, base64url) under the instance's media key (src/fetch/mediaKey.ts, kept in the database so that
 * every instance and every restart signs alike). Only what Tidings itself wrote can be fetched through
 * it: the route (src/http/media.ts) verifies the signature before anything is fetched, so it is no open
 * proxy. This file is the one rule of writing and reading those links; the fetching is
 * src/fetch/media.ts.
 */

/** Where the proxy's route lives, under the instance's base URL. */
export const MEDIA_PATH = '/media';

/** The longest image URL proxied, in characters (as a link's); a longer one is left out. */
export const MAX_MEDIA_URL = 2048;

/** Bytes of the HMAC kept: 128 bits, 22 characters of base64url. */
const SIGNATURE_BYTES = 16;
const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{22}$/;
/** base64url of at most MAX_MEDIA_URL bytes. */
const ENCODED_PATTERN = new RegExp(`^[A-Za-z0-9_-]{1,${Math.ceil((MAX_MEDIA_URL * 4) / 3)}}$`);

/** Raster data: URLs the sanitisers keep inline (nothing is requested for them). */
const RASTER_DATA = /^data:image\/(?:png|jpeg|gif|webp|avif);base64,[a-z0-9+/=]+$/i;

/** The image's URL as it is signed and fetched: absolute http(s), serialised; null for anything else. */
export function mediaSource(src: string): string | null {
  const trimmed = src.trim();
  if (trimmed === '' || trimmed.length > MAX_MEDIA_URL) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '') return null;
  return url.href.length > MAX_MEDIA_URL ? null : url.href;
}

function signature(key: Buffer, url: string): Buffer {
  return createHmac('sha256', key).update(`tidings media\n${url}`).digest().subarray(0, SIGNATURE_BYTES);
}

/** The path of an image's proxied link (`/media/SIGNATURE/ENCODED`); `url` as mediaSource gives it. */
export function mediaPath(key: Buffer, url: string): string {
  return `${MEDIA_PATH}/${signature(key, url).toString('base64url')}/${Buffer.from(url).toString('base64url')}`;
}

/**
 * The image URL a proxied link names, when its signature is this key's for it; null for anything else
 * (a malformed or tampered signature or URL, a URL that is no absolute http(s) one). Compared in constant
 * time.
 */
export function verifiedMediaUrl(key: Buffer, presented: string, encoded: string): string | null {
  if (!SIGNATURE_PATTERN.test(presented) || !ENCODED_PATTERN.test(encoded)) return null;
  const url = Buffer.from(encoded, 'base64url').toString('utf8');
  // Only what mediaPath writes: its URL serialised as it was signed, whose encoding is exactly this one.
  if (mediaSource(url) !== url || Buffer.from(url).toString('base64url') !== encoded) return null;
  // As text: base64url's last character has spare bits, so other spellings decode to the same bytes.
  const given = Buffer.from(presented);
  const expected = Buffer.from(signature(key, url).toString('base64url'));
  return given.length === expected.length && timingSafeEqual(given, expected) ? url : null;
}

/**
 * How the images of what Tidings shows are written: the one rewriting step of every rendering (the digest's
 * email, web page and Atom feed through digest/media.ts, the reading view and the queue's thumbnails).
 */
export interface MediaLinks {
  /**
   * The `src` to write for an image: its proxied link (the proxy on), or its own URL (off); a raster data:
   * URL as it is; null for anything that is neither (leave the image out).
   */
  image(src: string): string | null;
  /** A page's CSP `img-src` sources that let exactly these images load. */
  readonly imgSrc: string;
  /** Whether images go through the proxy. */
  readonly proxied: boolean;
}

/**
 * The CSP `img-src` of a page showing images: those of the proxy under `baseUrl` (and inline data:), or,
 * the proxy off (null), any http(s) image.
 */
export function mediaImgSrc(proxyBaseUrl: string | null): string {
  return proxyBaseUrl === null ? 'http: https: data:' : `'self' ${originOf(proxyBaseUrl)} data:`;
}

/** TIDINGS_MEDIA_PROXY=off: images are linked where they are, and pages let any http(s) image load. */
export const DIRECT_MEDIA: MediaLinks = {
  image: (src) => (RASTER_DATA.test(src.trim()) ? src.trim() : mediaSource(src)),
  imgSrc: mediaImgSrc(null),
  proxied: false,
};

/** The proxy's links under `baseUrl` (no trailing slash), signed with `key`. */
export function proxiedMedia(key: Buffer, baseUrl: string): MediaLinks {
  const base = baseUrl.replace(/\/+$/, '');
  const own = `${base}${MEDIA_PATH}/`;
  return {
    image(src) {
      const trimmed = src.trim();
      if (RASTER_DATA.test(trimmed)) return trimmed;
      // Already one of ours (a rendering of a rendering): as it is.
      if (trimmed.startsWith(own)) return trimmed;
      const url = mediaSource(trimmed);
      return url === null ? null : `${base}${mediaPath(key, url)}`;
    },
    imgSrc: mediaImgSrc(base),
    proxied: true,
  };
}

function originOf(base: string): string {
  try {
    const { origin } = new URL(base);
    return origin === 'null' ? "'self'" : origin;
  } catch {
    return "'self'";
  }
}
