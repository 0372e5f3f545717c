import { Parser } from 'htmlparser2';
import type { NetworkPolicy } from '../../fetch/address.js';
import type { MediaProxy, MediaResult } from '../../fetch/media.js';
import { lazy } from '../../lib/lazy.js';
import { Semaphore } from '../../lib/semaphore.js';
import type { Book, BookImage } from './book.js';

/*
 * The images of an EPUB's articles, embedded in the file (EPUB/images/…), never linked: a book is read
 * offline, on a device that should not call article sites (docs/privacy.md). Done on the caller's thread
 * before the book goes to its build thread (builds.ts), because it is network work:
 *
 * - each `<img src>` of the articles' HTML (absolute http(s), or a data: URI the sanitiser kept), in the
 *   order they appear, at most EPUB_IMAGES.count of them, each address once;
 * - fetched through the media proxy's fetching (src/fetch/media.ts: the one guarded client, its network
 *   policy at every connection and redirect, MEDIA_LIMITS.maxBytes an image, its time limit, its memory of
 *   recent images and failures), EPUB_IMAGES.fetches at a time, all within EPUB_IMAGES.deadlineMs;
 * - kept only when its bytes are a type every EPUB 3 reading system shows (EPUB_MEDIA: JPEG, PNG, GIF;
 *   WebP and AVIF are no core media types of EPUB 3.2 and need a fallback EPUBCheck insists on), and only
 *   while the book's images stay under EPUB_IMAGES.bytes in all.
 *
 * What fails (refused, too large, too slow, another type, past the budget) is dropped: the chapter shows
 * the image's alt text in brackets instead, as it did before images were embedded.
 */

export const EPUB_IMAGES = {
  /** Images a book embeds at most (the first ones, in reading order). */
  count: 100,
  /** Their bytes together at most: the e-reader copy's EPUB stays well under EREADER_MAX_BYTES. */
  bytes: 12 * 1024 * 1024,
  /** Images fetched at once (the media proxy's own limits apply too: 8, 2 per host). */
  fetches: 4,
  /** From the first fetch to the last byte of the last image: later ones are dropped. */
  deadlineMs: 20_000,
} as const;

export type EpubImageLimits = { -readonly [K in keyof typeof EPUB_IMAGES]: number };

/** Where images come from: the media proxy's fetching (MediaProxy), or a test's. */
export interface EpubImageSource {
  image(url: string): Promise<MediaResult>;
}

/** Sniffed type → the type the book declares, for the types an EPUB 3 reading system must show. */
const EPUB_MEDIA: Readonly<Record<string, { type: string; ext: string }>> = {
  'image/jpeg': { type: 'image/jpeg', ext: 'jpg' },
  'image/png': { type: 'image/png', ext: 'png' },
  // An animated PNG is a PNG to a reader that does not animate it.
  'image/apng': { type: 'image/png', ext: 'png' },
  'image/gif': { type: 'image/gif', ext: 'gif' },
};

/** The book with the images of its chapters embedded (in reading order), as far as they could be had. */
export async function withImages(
  book: Book,
  source: EpubImageSource | undefined,
  limits: EpubImageLimits = EPUB_IMAGES,
): Promise<Book> {
  const htmls = book.sections.flatMap((s) =>
    s.entries.flatMap((e) => (e.article === null ? [] : [e.article.html])),
  );
  const images = await embedImages(htmls, source, limits);
  return images.length === 0 ? book : { ...book, images };
}

/** The `<img src>` addresses of some HTML, in order, each once: absolute http(s) or data:image. */
export function imageSources(htmls: readonly string[], max: number = EPUB_IMAGES.count): string[] {
  const found = new Set<string>();
  for (const html of htmls) {
    if (found.size >= max) break;
    const parser = new Parser(
      {
        onopentag(name, attribs) {
          const src = attribs.src?.trim() ?? '';
          if (name === 'img' && found.size < max && /^(?:https?:\/\/|data:image\/)/i.test(src))
            found.add(src);
        },
      },
      { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
    );
    parser.write(html);
    parser.end();
  }
  return [...found];
}

/**
 * The images of the articles' HTML that could be had, ready to embed, in reading order. Never rejects:
 * an image that fails is left out. Without a source (a caller that fetches nothing), none.
 */
export async function embedImages(
  htmls: readonly string[],
  source: EpubImageSource | undefined,
  limits: EpubImageLimits = EPUB_IMAGES,
): Promise<BookImage[]> {
  const sources = imageSources(htmls, limits.count);
  if (sources.length === 0) return [];
  const slots = new Semaphore(limits.fetches);
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), limits.deadlineMs);
  });
  const fetched = sources.map((src) =>
    Promise.race([
      slots.run(() =>
        Date.now() - started >= limits.deadlineMs ? Promise.resolve(null) : imageOf(src, source),
      ),
      deadline,
    ]).catch(() => null),
  );
  try {
    const results = await Promise.all(fetched);
    const images: BookImage[] = [];
    let total = 0;
    results.forEach((found, i) => {
      const src = sources[i];
      if (found === null || src === undefined || total + found.bytes.length > limits.bytes) return;
      total += found.bytes.length;
      const n = images.length + 1;
      images.push({ src, href: `images/${n}.${found.ext}`, mediaType: found.type, bytes: found.bytes });
    });
    return images;
  } finally {
    clearTimeout(timer);
  }
}

interface Found {
  type: string;
  ext: string;
  bytes: Uint8Array;
}

async function imageOf(src: string, source: EpubImageSource | undefined): Promise<Found | null> {
  if (/^data:/i.test(src)) return dataImage(src);
  if (source === undefined) return null;
  const result = await source.image(src);
  if (result.kind !== 'image') return null;
  const media = EPUB_MEDIA[result.type];
  return media === undefined ? null : { ...media, bytes: new Uint8Array(result.body) };
}

/** The largest data: URI decoded (the sanitiser bounds the HTML; this bounds the work). */
const MAX_DATA_CHARS = 2 * 1024 * 1024;

/** A base64 data: URI's image, when its bytes are a type the book takes (sniffed, not as it says). */
async function dataImage(src: string): Promise<Found | null> {
  if (src.length > MAX_DATA_CHARS) return null;
  const m = /^data:image\/[a-z0-9.+-]+(?:;[^,;]*)*;base64,([A-Za-z0-9+/=\s]+)$/i.exec(src);
  if (m === null) return null;
  const bytes = Buffer.from(m[1] ?? '', 'base64');
  const { sniffedImageType } = await mediaTypes();
  const type = await sniffedImageType(bytes);
  const media = type === null ? undefined : EPUB_MEDIA[type];
  return media === undefined ? null : { ...media, bytes: new Uint8Array(bytes) };
}

const mediaTypes = lazy(() => import('../../fetch/mediaTypes.js'));
const mediaModule = lazy(() => import('../../fetch/media.js'));

/**
 * The process's image source for EPUBs: a media proxy's fetching with the instance's network policy,
 * made (file-type and lru-cache loaded) at the first image asked for. `proxy` for tests.
 */
export function epubImageSource(policy: () => NetworkPolicy, proxy?: MediaProxy): EpubImageSource {
  let made: MediaProxy | undefined = proxy;
  return {
    async image(url) {
      made ??= new (await mediaModule()).MediaProxy({ policy: policy() });
      return made.image(url);
    },
  };
}
