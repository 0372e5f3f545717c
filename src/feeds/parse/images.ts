import type { MediaNs } from 'feedsmith';

/**
 * Where an item names its own picture, in the order Tidings prefers them: Media RSS thumbnails, Media RSS
 * content that is an image (medium="image" or an image/* type, directly or in a media:group), then the
 * item-level itunes:image. Each format's reader adds its own (JSON Feed `image` and `banner_image`); an
 * image enclosure comes last (entry.ts). Candidates are URLs as published: entry.ts resolves them.
 */
export function mediaImages(
  media: MediaNs.ItemOrFeed | undefined,
  itunesImage?: string,
): (string | undefined)[] {
  if (media === undefined) return [itunesImage];
  const contents = [...(media.contents ?? []), ...(media.groups ?? []).flatMap((g) => g.contents ?? [])];
  return [
    ...(media.thumbnails ?? []).map((t) => t.url),
    ...contents.flatMap((c) => (c.thumbnails ?? []).map((t) => t.url)),
    ...contents.filter(isImage).map((c) => c.url),
    itunesImage,
  ];
}

function isImage(content: MediaNs.Content): boolean {
  return content.medium === 'image' || (content.type?.toLowerCase().startsWith('image/') ?? false);
}
