import { DIRECT_MEDIA, type MediaLinks } from '../lib/mediaUrl.js';
import type { MediaSigner } from '../fetch/mediaKey.js';
import type { DigestItemView, DigestView } from './view.js';

/**
 * The view with its images written as `media` writes them (lib/mediaUrl.ts): the media proxy's signed
 * links, so that opening the email, the web page or the Atom feed asks Tidings for every picture and no
 * third party learns who read when (docs/privacy.md). An image `media` cannot write is left out (the
 * entry then shows no thumbnail). Called on every view that is rendered with its images: the email
 * (deliver.ts, `tidings digest show`), the web page and the Atom feed (src/http/digests.ts). The EPUB
 * shows no image at all (epub/xhtml.ts).
 */
export function withMediaLinks(view: DigestView, media: MediaLinks): DigestView {
  const item = (i: DigestItemView): DigestItemView => {
    if (i.image === null) return i;
    const url = media.image(i.image.url);
    return { ...i, image: url === null ? null : { ...i.image, url } };
  };
  return { ...view, groups: view.groups.map((g) => ({ ...g, items: g.items.map(item) })) };
}

/** The links of a process's signer, or (none given: tests) images linked where they are. */
export function mediaLinksOf(signer: MediaSigner | undefined): Promise<MediaLinks> {
  return signer === undefined ? Promise.resolve(DIRECT_MEDIA) : signer.links();
}
