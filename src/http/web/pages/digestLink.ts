import type { FastifyReply, FastifyRequest } from 'fastify';
import { archivedDigest } from '../../../accounts/digests.js';
import { type WebDeps, sendPage, seeOther, sessionOf, viewerOf, localeFor } from '../context.js';
import { SafeHtml, html, markup } from '../html.js';
import { page } from '../layout.js';

/**
 * A browser opened `/digests/:id` without a valid token: no token at all (a copied address), or the token
 * of an email sent before the digest feed address was reset. Feed readers and scripts keep the JSON 404
 * (http/digests.ts); a browser (Accept: text/html, the one rule of web/index.ts `wantsPage`) gets this:
 *
 * - signed in, and the digest is the reader's own: a redirect to it, by the account's current token;
 * - else a page that says the link has expired or was reset, and where to go on (sign in; or the archive).
 *   It never says whether the digest exists.
 */
export async function digestLinkPage(
  deps: WebDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  digestId: number | null,
  pageNumber: number | null,
): Promise<FastifyReply> {
  const session = sessionOf(request);
  if (session !== null && digestId !== null) {
    // Path only: the reader stays on the address they came by.
    const own = await archivedDigest(deps.store, session.accountId, digestId, '');
    if (own !== null) {
      const suffix = pageNumber === null || pageNumber === 1 ? '' : `&page=${pageNumber}`;
      return seeOther(reply, `${own.webUrl}${suffix}`);
    }
  }
  const viewer = viewerOf(session);
  const locale = localeFor(request);
  const next = `/digests${digestId === null ? '' : `/${digestId}`}`;
  const signIn = `/sign-in?next=${encodeURIComponent(next)}`;
  const onward =
    viewer === null
      ? locale.html('web.digestLink.signIn', markup.link(signIn), markup.linkNames)
      : locale.html('web.digestLink.archive', markup.link('/digests'), markup.linkNames);
  return sendPage(
    reply,
    404,
    page({
      locale,
      title: locale.t('web.digestLink.title'),
      viewer,
      body: html`<h1>${locale.t('web.digestLink.title')}</h1>
        <p>${locale.t('web.digestLink.why')}</p>
        <p>${new SafeHtml(onward)}</p>`,
    }),
  );
}
