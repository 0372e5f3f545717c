import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { localeOf } from '../i18n/locale.js';
import { digestReader } from '../accounts/digestToken.js';
import { digestActionReader } from '../accounts/digestActions.js';
import { digestAsEpub, digestFeed, digestToRead } from '../accounts/digests.js';
import { withActionLinks } from '../digest/actionLinks.js';
import { EPUB_MEDIA_TYPE } from '../digest/epub/book.js';
import { type EpubBuildError, type EpubBuilds, isEpubBuildError } from '../digest/epub/builds.js';
import type { EpubImageSource } from '../digest/epub/images.js';
import type { DigestEpub } from '../digest/epub/load.js';
import { withMediaLinks } from '../digest/media.js';
import type { MediaSigner } from '../fetch/mediaKey.js';
import { digestFeedUrl } from '../digest/token.js';
import { lazy } from '../lib/lazy.js';
import { renderWebPage } from '../digest/render/html.js';
import { ApiError, toErrorResponse } from './errors.js';
import type { Store } from '../store/db.js';
import { sendConditional } from './conditional.js';
import { type WebFallbacks, wantsPage } from './web/index.js';

/**
 * The private digest URLs, both authorised by the account's digest token in the query (see
 * src/accounts/digestToken.ts):
 *
 * - `GET /digests/:id?token=T[&page=N]`: one digest as a web page (the email's markup), DIGEST_PAGE_ITEMS
 *   items a page (src/digest/limits.ts); a page that does not exist is a 404;
 * - `GET /digests/:id/epub?token=T`: the same digest as an EPUB 3 file (src/digest/epub/), a download;
 * - `GET /digests.atom?token=T`: the Atom feed of the account's latest FEED_DIGESTS digests, each entry
 *   the view its email shows, cut to ATOM_ENTRY_BYTES of HTML (src/digest/limits.ts) as the email is cut.
 *
 * A wrong, replaced or missing token, another account's digest and a digest that does not exist all get the
 * same 404 {code, message}: the answer never tells whether a digest exists. The token is a query parameter
 * (not a path segment) so that the request log's URL redaction removes it like an API key.
 */

/**
 * Digests in the Atom feed, newest first: three weeks of daily digests. Each entry carries its email's
 * view, within ATOM_ENTRY_BYTES (100 KB) of HTML (about 40 KB for 50 entries): 20 keep the feed near
 * 1 MB at 50 entries a digest and about 2 MB at most, within the limits feed readers put on a document.
 */
export const FEED_DIGESTS = 20;

/**
 * Headers of every response on these paths (errors too). The page has inline styles (the email's markup)
 * and the items' thumbnails (`imgSrc`: the media proxy's, under the base URL, unless it is off), nothing
 * else: no scripts, fonts, frames or forms. The token is in the URL: no Referer, not even to the proxy.
 */
export function digestPageHeaders(imgSrc: string): Readonly<Record<string, string>> {
  return {
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; img-src ${imgSrc}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

const HTML_TYPE = 'text/html; charset=utf-8';
const ATOM_TYPE = 'application/atom+xml; charset=utf-8';
/** feedsmith's writer, loaded by the first request for a digest feed. */
const atomWriter = lazy(() => import('../digest/render/atom.js'));

export interface DigestRoutesDeps {
  store: Store;
  /** Public base URL of the instance: the links in pages and feeds. */
  baseUrl: string;
  /** The answer to a browser whose digest link did not open (the web app's); without it, the JSON 404. */
  browserRefusal?: WebFallbacks['digestLinkRefused'];
  /** The answer to a browser whose EPUB could not be made (busy, failed); without it, the JSON error. */
  browserError?: WebFallbacks['errorPage'];
  /** Where EPUBs are made: the process's builds unless a test gives its own. */
  epubBuilds?: EpubBuilds;
  /** The clock a page reads the feeds' mutes and checks an action token's age by (digest/linkLifetimes.ts); the system's by default. */
  now?: () => Date;
  /** How the page and the feed write their images (the media proxy's links unless it is off). */
  media: MediaSigner;
  /** Where an EPUB's images are fetched to be embedded (digest/epub/images.ts); none without it. */
  epubImages?: EpubImageSource | undefined;
}

export function registerDigestRoutes(app: FastifyInstance, deps: DigestRoutesDeps): void {
  const { store, baseUrl, media } = deps;
  const now = deps.now ?? (() => new Date());
  void app.register((scope, _opts, done) => {
    scope.addHook('onSend', (_request, reply, payload, next) => {
      // The web app's pages (the answer to a browser whose link did not open) keep their own policy.
      if (!reply.hasHeader('content-security-policy')) reply.headers(digestPageHeaders(media.imgSrc()));
      next(null, payload);
    });

    scope.get('/digests/:id', async (request, reply) => {
      const { id } = request.params as { id: string };
      const token = queryToken(request);
      const accountId = token === null ? null : await digestReader(store, token);
      const page = pageNumber(request);
      const digestId = /^[1-9]\d{0,14}$/.test(id) ? Number(id) : null;
      const loaded =
        accountId === null || digestId === null || page === null
          ? null
          : await digestToRead(store, accountId, digestId, page, baseUrl, now());
      if (loaded === null) {
        // A browser gets a page saying what happened (or, signed in, its own digest); others the JSON.
        if (deps.browserRefusal !== undefined && wantsPage(request))
          return deps.browserRefusal(request, reply, digestId, page);
        throw digestNotFound();
      }
      if (loaded.view.page.number > loaded.view.page.count) throw pageNotFound();
      // Opened from its email: the email's actions token, when it is this digest's, shows the actions too.
      const actions = queryValue(request, 'action_token');
      const reader = actions === null ? null : await digestActionReader(store, actions, now());
      const view =
        reader !== null && reader.accountId === accountId && reader.digestId === digestId
          ? withActionLinks(loaded.view, baseUrl, actions)
          : loaded.view;
      return sendConditional(request, reply, {
        contentType: HTML_TYPE,
        body: renderWebPage(withMediaLinks(view, await media.links())),
        lastModified: loaded.digest.created_at,
      });
    });

    scope.get('/digests/:id/epub', async (request, reply) => {
      const { id } = request.params as { id: string };
      const token = queryToken(request);
      const accountId = token === null ? null : await digestReader(store, token);
      const digestId = /^[1-9]\d{0,14}$/.test(id) ? Number(id) : null;
      let epub: DigestEpub | null = null;
      try {
        epub =
          accountId === null || digestId === null
            ? null
            : await digestAsEpub(store, accountId, digestId, baseUrl, {
                ...(deps.epubBuilds === undefined ? {} : { builds: deps.epubBuilds }),
                images: deps.epubImages,
              });
      } catch (err) {
        if (!isEpubBuildError(err)) throw err;
        return epubNotMade(request, reply, err, deps.browserError);
      }
      if (epub === null) {
        if (deps.browserRefusal !== undefined && wantsPage(request))
          return deps.browserRefusal(request, reply, digestId, 1);
        throw digestNotFound();
      }
      reply.header('content-disposition', `attachment; filename="${epub.fileName}"`);
      return sendConditional(request, reply, {
        contentType: EPUB_MEDIA_TYPE,
        body: Buffer.from(epub.bytes),
        lastModified: epub.book.modified,
      });
    });

    scope.get('/digests.atom', async (request, reply) => {
      const token = queryToken(request);
      const accountId = token === null ? null : await digestReader(store, token);
      const feed = accountId === null ? null : await digestFeed(store, accountId, FEED_DIGESTS, baseUrl);
      if (token === null || feed === null) throw feedNotFound();
      const { account, digests } = feed;
      // As the feed's <updated>: the newest digest's build time, the account's creation while there is none.
      const newest = digests.reduce<string | null>(
        (max, { digest: d }) => (max === null || d.created_at > max ? d.created_at : max),
        null,
      );
      const { renderAtom } = await atomWriter();
      // Feed readers fetch the entries' images too: through the proxy, as the email's.
      const links = await media.links();
      return sendConditional(request, reply, {
        contentType: ATOM_TYPE,
        body: renderAtom({
          account,
          digests: digests.map((d) => withMediaLinks(d.view, links)),
          feedUrl: digestFeedUrl(baseUrl, token),
          baseUrl,
          locale: localeOf(account.language),
        }),
        lastModified: newest ?? account.created_at,
      });
    });
    done();
  });
}

/**
 * A digest's EPUB that was not made: http/errors.ts maps it (busy 503 with Retry-After, failed 500, as for
 * every EPUB); a browser gets that answer as a page, others as the JSON {code, message}.
 */
function epubNotMade(
  request: FastifyRequest,
  reply: FastifyReply,
  err: EpubBuildError,
  browserError: WebFallbacks['errorPage'] | undefined,
): Promise<FastifyReply> {
  if (browserError === undefined || !wantsPage(request)) throw err;
  const res = toErrorResponse(err, request.log);
  return browserError(request, reply.headers(res.headers), res.status, res.body.message);
}

/** A query parameter given once; null otherwise. */
function queryValue(request: FastifyRequest, name: string): string | null {
  const value = (request.query as Record<string, string | string[] | undefined>)[name];
  return typeof value === 'string' ? value : null;
}

/** The `token` query parameter when it is given once; null otherwise. */
function queryToken(request: FastifyRequest): string | null {
  const value = (request.query as Record<string, string | string[] | undefined>).token;
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The `page` query parameter: 1 when absent; null when it is not one whole number from 1 up. */
function pageNumber(request: FastifyRequest): number | null {
  const value = (request.query as Record<string, string | string[] | undefined>).page;
  if (value === undefined) return 1;
  return typeof value === 'string' && /^[1-9]\d{0,5}$/.test(value) ? Number(value) : null;
}

const digestNotFound = (): ApiError =>
  new ApiError('not_found', 'no such digest, or the link is not valid (its token may have been replaced)');

const pageNotFound = (): ApiError => new ApiError('not_found', 'this digest has no such page');

const feedNotFound = (): ApiError =>
  new ApiError('not_found', 'no such feed, or the link is not valid (its token may have been replaced)');
