import type { FastifyInstance, FastifyReply } from 'fastify';
import { truncate } from '../../../lib/text.js';
import { MAX_TITLE_LENGTH } from '../../../queue/url.js';
import { queryParam, sendPage, seeOther, sessionOf, viewerOf } from '../context.js';
import { html } from '../html.js';
import { page } from '../layout.js';
import { SHARE_PATH } from '../manifest.js';
import { type AddForm, addForm } from './queue.js';

/** How much of a shared text is read for a link (a share of a whole article stops mattering before). */
const TEXT_READ = 10_000;

/**
 * The share target (see manifest.ts): `GET /share?title=&text=&url=`, as Android opens it once Tidings is
 * installed. It saves nothing: it shows the queue's own "Add a link" form filled in with what was shared,
 * with this session's CSRF token, and the reader confirms with one tap (the form POSTs to /queue, the same
 * path as every save from the web). A GET changes nothing, so a link that opens it cannot add to anyone's
 * queue. Without a session it goes to the sign-in page and comes back here with the shared link; `next` is
 * a local path only (context.ts localPath), never another site.
 */
export function registerShare(scope: FastifyInstance): void {
  scope.get(SHARE_PATH, (request, reply) => {
    const shared = sharedLink({
      url: queryParam(request, 'url'),
      title: queryParam(request, 'title'),
      text: queryParam(request, 'text'),
    });
    const viewer = viewerOf(sessionOf(request));
    if (viewer === null) return signInFirst(reply, shared);
    const form: AddForm =
      shared.url === null
        ? {
            url: '',
            title: shared.title,
            error: viewer.locale.t('web.share.noAddress'),
          }
        : { url: shared.url, title: shared.title };
    return sendPage(
      reply,
      shared.url === null ? 400 : 200,
      page({
        title: viewer.locale.t('web.share.title'),
        locale: viewer.locale,
        viewer,
        body: html`<h1>${viewer.locale.t('web.share.title')}</h1>
          <p>${viewer.locale.t('web.share.check')}</p>
          ${addForm(viewer, form)}`,
      }),
    );
  });
}

/** The title carried through the sign-in page: enough to recognise the link, short enough for `next`. */
const TITLE_THROUGH_SIGN_IN = 200;

/** To the sign-in page, to come back with what was shared (the address and the title; not the text). */
function signInFirst(reply: FastifyReply, shared: SharedLink): FastifyReply {
  const query = new URLSearchParams();
  if (shared.url !== null) query.set('url', shared.url);
  if (shared.title !== '') query.set('title', truncate(shared.title, TITLE_THROUGH_SIGN_IN));
  const back = query.size === 0 ? SHARE_PATH : `${SHARE_PATH}?${query.toString()}`;
  return seeOther(reply, `/sign-in?next=${encodeURIComponent(back)}`);
}

export interface SharedLink {
  /** The first http(s) address shared; null when there is none. */
  url: string | null;
  /** The shared title, else the shared text without the address; '' when neither. */
  title: string;
}

const URL_IN_TEXT = /https?:\/\/[^\s<>"'`]+/i;
/** Punctuation that ends a sentence rather than the address it follows. */
const TRAILING = /[.,;:!?)\]}»”’]+$/;

/**
 * What was shared, as Android apps share it: the address in `url`, or (often) inside `text`, after or
 * before some words; sometimes in `title`. The first http(s) address wins.
 */
export function sharedLink(p: {
  url?: string | undefined;
  title?: string | undefined;
  text?: string | undefined;
}): SharedLink {
  const text = (p.text ?? '').slice(0, TEXT_READ);
  const title = oneLine(p.title ?? '');
  const fromUrl = firstUrl(p.url ?? '');
  const url = fromUrl ?? firstUrl(text) ?? firstUrl(title);
  let shownTitle = title;
  if (shownTitle === '' || shownTitle === url) {
    shownTitle = url === null ? oneLine(text) : oneLine(text.replace(url, ' '));
    if (shownTitle === url) shownTitle = '';
  }
  return { url, title: truncate(shownTitle, MAX_TITLE_LENGTH) };
}

function firstUrl(text: string): string | null {
  const found = URL_IN_TEXT.exec(text)?.[0];
  if (found === undefined) return null;
  let url = found;
  // A closing bracket stays when the address opened one: https://en.wikipedia.org/wiki/Tidings_(film)
  for (let m = TRAILING.exec(url); m !== null; m = TRAILING.exec(url)) {
    const last = url.slice(-1);
    const opener = { ')': '(', ']': '[', '}': '{' }[last];
    if (opener !== undefined && count(url, opener) >= count(url, last)) break;
    url = url.slice(0, -1);
  }
  return url;
}

const count = (s: string, c: string): number => s.split(c).length - 1;

const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();
