import { type Locale, localeOf } from '../../../i18n/locale.js';
import { accountOf } from '../../../accounts/profile.js';
import type { FastifyInstance } from 'fastify';
import { digestReader } from '../../../accounts/digestToken.js';
import { type ReadableItem, readableItem } from '../../../accounts/items.js';
import type { AccountId } from '../../../lib/authorized.js';
import {
  bylineAuthor,
  deliveredUrl,
  leadImage,
  readingMinutes,
  shownTitle,
  siteName,
  thumbnailSize,
} from '../../../lib/display.js';
import type { MediaLinks } from '../../../lib/mediaUrl.js';
import { domainOf } from '../../../lib/url.js';
import {
  type WebDeps,
  WebError,
  idParam,
  queryParam,
  requireSession,
  sendPage,
  viewerOf,
  localeFor,
} from '../context.js';
import { SafeHtml, html, safeHref } from '../html.js';
import { type Viewer, page } from '../layout.js';
import { lazy } from '../../../lib/lazy.js';

/** sanitize-html, loaded by the first reading view. */
const readerSanitizer = lazy(() => import('../readerHtml.js'));

/**
 * The reading view of a saved page, `GET /items/:id` (the id of the `pages` row): for the signed-in
 * reader, or with `?token=` the account's digest token, the private link digests carry. Either way only
 * when that account has an item (queued, or in one of its digests) showing the page; anything else is the
 * same 404, so the answer never tells whether another account saved a page.
 */

/**
 * The page's policy: the images `media` writes (the media proxy's, under the base URL: nothing from a third
 * party; with TIDINGS_MEDIA_PROXY=off the article's own, from anywhere), the app's stylesheet, nothing
 * else: no scripts, frames, fonts or inline styles, whatever the stored HTML holds. Signed in, the only
 * form is "Sign out" (to this site); opened with a token, there is none.
 */
export function readerCsp(media: Pick<MediaLinks, 'imgSrc'>, signedIn: boolean): string {
  return (
    `default-src 'none'; img-src ${media.imgSrc}; style-src 'self'; manifest-src 'self'; base-uri 'none'; ` +
    `form-action ${signedIn ? "'self'" : "'none'"}; frame-ancestors 'none'`
  );
}

export function registerItem(scope: FastifyInstance, deps: WebDeps): void {
  scope.get('/items/:id', async (request, reply) => {
    const id = idParam(request);
    const token = queryParam(request, 'token');
    let accountId: AccountId | null;
    let viewer: Viewer | null = null;
    let locale: Locale;
    if (token !== undefined) {
      accountId = await digestReader(deps.store, token);
      // Opened from a digest, without a session: in the language of the account the token names (the
      // digest's), not the browser's.
      const account = accountId === null ? null : await accountOf(deps.store, accountId);
      locale = account === null ? localeFor(request) : localeOf(account.language);
    } else {
      const session = requireSession(request);
      accountId = session.accountId;
      viewer = viewerOf(session);
      locale = localeFor(request);
    }
    const found = id === null || accountId === null ? null : await readableItem(deps.store, accountId, id);
    if (found === null) throw new WebError(404, locale.t('web.item.notFound'));
    const { readerHtml } = await readerSanitizer();
    const media = await deps.media.links();
    return sendPage(reply, 200, readingPage(locale, found, viewer, media, readerHtml), {
      'content-security-policy': readerCsp(media, viewer !== null),
    });
  });
}

/** Lead images are drawn at most this wide (CSS pixels); the stylesheet narrows them on small screens. */
const LEAD_WIDTH = 640;

function readingPage(
  locale: Locale,
  found: ReadableItem,
  viewer: Viewer | null,
  media: MediaLinks,
  readerHtml: (html: string, media: MediaLinks) => string,
): SafeHtml {
  const { page: p, item } = found;
  const title = shownTitle(item.title, item.url, p);
  // A newsletter's item links here: its original is the sender's web version, when it gave one.
  const original = p.kind === 'newsletter' ? p.final_url : item.url;
  const href = original === null ? null : safeHref(deliveredUrl(original, found.cleanLinks));
  const site = siteName(p) ?? domainOf(item.url);
  const byline = [
    site,
    bylineAuthor(p.author, site, domainOf(item.url)),
    p.published_at === null ? null : locale.date(p.published_at, found.timezone),
    locale.minRead(readingMinutes(p)),
  ].filter((s): s is string => s !== null && s.trim() !== '');
  const body = p.html === null ? '' : readerHtml(p.html, media);
  const image = leadImage(p, null, found.showImages);
  const src = image === null ? null : media.image(image.url);
  // Readability usually keeps the lead image in the text: shown once.
  const lead = image !== null && src !== null && !body.includes(src) ? image : null;
  const size = lead === null ? null : thumbnailSize(lead, LEAD_WIDTH);
  const lang = languageTag(p.language);
  // The page's own direction when it declares one (an Arabic page full of Latin names is still read right
  // to left); otherwise each block's first strong letter decides.
  const dir = p.direction === 'rtl' || p.direction === 'ltr' ? p.direction : 'auto';
  return page({
    locale,
    title,
    viewer,
    body: html`<article class="reader" dir="${dir}" ${lang === null ? null : html`lang="${lang}"`}>
      ${
        href === null
          ? null
          : html`<p class="original">
              <a href="${href}" rel="noopener noreferrer"
                >${locale.t('web.item.openOriginalOn', { on: site === '' ? 'no' : 'yes', site })}</a
              >
            </p>`
      }
      <h1 dir="${dir}">${title}</h1>
      ${byline.length === 0 ? null : html`<p class="byline" dir="auto">${byline.join(' · ')}</p>`}
      ${
        lead === null || size === null
          ? null
          : html`<figure class="lead">
              <img
                src="${src}"
                width="${size.width}"
                height="${size.height}"
                alt="${lead.alt}"
                referrerpolicy="no-referrer"
              />
            </figure>`
      }
      ${
        body === ''
          ? html`<p dir="${dir}">${p.description ?? ''}</p>
              <p>${locale.t('web.item.noText')}</p>`
          : html`<div class="text" dir="${dir}">${new SafeHtml(body)}</div>`
      }
      ${href === null ? null : html`<p class="original"><a href="${href}" rel="noopener noreferrer">${locale.t('web.item.openOriginal')}</a></p>`}
    </article>`,
  });
}

/** A BCP 47 language tag as a page states it ("en", "ar-EG"); null for anything else. */
function languageTag(value: string | null): string | null {
  const tag = value?.trim() ?? '';
  return /^[a-z]{2,3}(?:-[a-z0-9]{1,8}){0,3}$/i.test(tag) ? tag : null;
}
