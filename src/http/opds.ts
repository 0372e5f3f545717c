import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountId } from '../accounts/authorize.js';
import { digestAsEpub } from '../accounts/digests.js';
import { opdsDigests, opdsReader, opdsReadingList, opdsUrl } from '../accounts/opds.js';
import type { PasswordHolds } from '../accounts/passwordHolds.js';
import type { VerifiedPasswords } from '../accounts/verifiedPasswords.js';
import { signInWithPassword } from '../accounts/passwords.js';
import { readingEntryEpub } from '../accounts/readingEpub.js';
import { EPUB_MEDIA_TYPE } from '../digest/epub/book.js';
import type { EpubBuilds } from '../digest/epub/builds.js';
import type { EpubImageSource } from '../digest/epub/images.js';
import type { MediaSigner } from '../fetch/mediaKey.js';
import type { Store } from '../store/db.js';
import { sendConditional } from './conditional.js';
import { ApiError } from './errors.js';
import type { InvalidKeyLimiter } from './invalidKeyLimiter.js';
import {
  NAVIGATION_TYPE,
  ACQUISITION_TYPE,
  type OpdsLinks,
  digestsFeed,
  navigationFeed,
  readingFeed,
} from './opdsFeed.js';

/*
 * The OPDS 1.2 catalogue (docs/apps.md#opds-catalogue): `/opds` (navigation), `/opds/digests` and
 * `/opds/reading` (acquisition, OPDS_PAGE_SIZE a page), `/opds/digests/ID.epub` and
 * `/opds/reading/ID.epub`. Every request is signed in, one of two ways:
 *
 * - HTTP Basic with the account's e-mail address or name and its password: accounts/passwords.ts
 *   `signInWithPassword` with the web sign-in's own limiter (per address) and holds (per account), so a
 *   wrong password here counts exactly as one on the sign-in page; no credentials at all is a 401 with
 *   the challenge and counts nothing (a client's first request);
 * - `?token=` from `tidings account opds-url` or Settings: the links the feeds hold then carry it, since
 *   such a client has nothing else to send. A wrong token counts against the address too.
 *
 * Errors are the API's JSON `{code, message}`: 401 (with `WWW-Authenticate: Basic`), 429 with
 * Retry-After, 404, 400 for a bad page number, 503 (Retry-After) when EPUB builds are busy.
 */

export const OPDS_PAGE_SIZE = 25;
/** Past it a page number is refused: 25 × 10,000 entries is more than any list holds. */
const MAX_PAGE = 10_000;
const CHALLENGE = { 'www-authenticate': 'Basic realm="Tidings", charset="UTF-8"' };
/** The longest Authorization header read (an identifier and a password, base64). */
const MAX_AUTHORIZATION = 8 * 1024;

export interface OpdsRouteDeps {
  store: Store;
  /** The instance's public base URL, read per request (tests learn their port after registering). */
  baseUrl: () => string;
  now: () => Date;
  /** The web sign-in's limiter (failed attempts per client address) and holds (per account). */
  signInLimiter: InvalidKeyLimiter;
  passwordHolds: PasswordHolds;
  /** Basic credentials verified a moment ago: an e-reader's requests after the first skip scrypt. */
  verifiedPasswords: VerifiedPasswords;
  /** Covers are the media proxy's signed links (or the images' own with the proxy off). */
  media: MediaSigner;
  epubBuilds?: EpubBuilds | undefined;
  epubImages?: EpubImageSource | undefined;
}

interface Reader {
  accountId: AccountId;
  /** The token the catalogue was opened with, carried in its links; null with Basic. */
  token: string | null;
}

export function registerOpds(app: FastifyInstance, deps: OpdsRouteDeps): void {
  const { store } = deps;
  const base = (): string => deps.baseUrl().replace(/\/+$/, '');
  const hostOf = (): string => {
    try {
      return new URL(base()).hostname.replace(/^\[|\]$/g, '') || 'localhost';
    } catch {
      return 'localhost';
    }
  };

  async function signIn(request: FastifyRequest): Promise<Reader> {
    const limiter = deps.signInLimiter;
    const token = queryString(request, 'token');
    const basic = token === null ? basicCredentials(request.headers.authorization) : null;
    if (token === null && basic === null) {
      throw new ApiError(
        'key_missing',
        'sign in with your e-mail address or account name and your password',
        CHALLENGE,
      );
    }
    const wait = limiter.reserve(request.ip);
    if (wait > 0) {
      throw new ApiError(
        'rate_limited',
        `too many failed sign-ins from your network; try again in ${wait} seconds`,
        {
          'retry-after': String(wait),
        },
      );
    }
    if (token !== null) {
      const accountId = await opdsReader(store, token);
      if (accountId === null)
        throw new ApiError('key_invalid', 'this catalogue link is not valid (replaced or revoked?)');
      limiter.giveBack(request.ip);
      return { accountId, token };
    }
    const signedIn =
      basic === null
        ? null
        : await signInWithPassword(
            store,
            basic.user,
            basic.password,
            deps.now(),
            deps.passwordHolds,
            deps.verifiedPasswords,
          );
    if (signedIn === null) {
      throw new ApiError(
        'key_invalid',
        'the e-mail address or account name, or the password, is wrong',
        CHALLENGE,
      );
    }
    limiter.giveBack(request.ip);
    if ('heldSeconds' in signedIn) {
      throw new ApiError(
        'rate_limited',
        `password sign-in is held; try again in ${signedIn.heldSeconds} seconds`,
        {
          'retry-after': String(signedIn.heldSeconds),
        },
      );
    }
    return { accountId: signedIn.accountId, token: null };
  }

  const linksFor = (reader: Reader): OpdsLinks => ({
    host: hostOf(),
    href: (path, page) => {
      const params = new URLSearchParams();
      if (page !== undefined && page > 1) params.set('page', String(page));
      if (reader.token !== null) params.set('token', reader.token);
      const query = params.toString();
      if (path === '/opds' && reader.token !== null && page === undefined)
        return opdsUrl(base(), reader.token);
      return `${base()}${path}${query === '' ? '' : `?${query}`}`;
    },
  });

  const sendFeed = (
    request: FastifyRequest,
    reply: FastifyReply,
    type: string,
    body: string,
    updated: Date,
  ) =>
    sendConditional(request, reply, {
      contentType: `${type};charset=utf-8`,
      body,
      lastModified: updated.toISOString(),
    });

  void app.register((scope, _opts, done) => {
    scope.addHook('onSend', (_request, reply, payload, next) => {
      // Private to the account: never kept by a shared cache, never framed, never sniffed.
      reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
      next(null, payload);
    });

    scope.get('/opds', async (request, reply) => {
      const reader = await signIn(request);
      const digests = await opdsDigests(store, reader.accountId, { offset: 0, limit: 1 });
      const reading = await opdsReadingList(store, reader.accountId, { offset: 0, limit: 1 });
      const newest = [digests.entries[0]?.created_at, reading.entries[0]?.savedAt].filter(
        (x) => x !== undefined,
      );
      const updated = new Date(newest.sort().at(-1) ?? '2026-01-01T00:00:00.000Z');
      const body = navigationFeed(
        linksFor(reader),
        { digests: digests.total, unread: reading.total },
        updated,
      );
      return sendFeed(request, reply, NAVIGATION_TYPE, body, updated);
    });

    scope.get('/opds/digests', async (request, reply) => {
      const reader = await signIn(request);
      const number = pageNumber(request);
      const list = await opdsDigests(store, reader.accountId, pageWindow(number));
      const updated = new Date(list.entries[0]?.created_at ?? '2026-01-01T00:00:00.000Z');
      const page = { number, size: OPDS_PAGE_SIZE, total: list.total };
      return sendFeed(
        request,
        reply,
        ACQUISITION_TYPE,
        digestsFeed(linksFor(reader), list.entries, page, updated),
        updated,
      );
    });

    scope.get('/opds/reading', async (request, reply) => {
      const reader = await signIn(request);
      const number = pageNumber(request);
      const list = await opdsReadingList(store, reader.accountId, pageWindow(number));
      const links = await deps.media.links();
      const entries = list.entries.map((e) => ({
        ...e,
        coverHref: e.cover === null ? null : links.image(e.cover),
      }));
      const newest = list.entries
        .map((e) => e.savedAt)
        .sort()
        .at(-1);
      const updated = new Date(newest ?? '2026-01-01T00:00:00.000Z');
      const page = { number, size: OPDS_PAGE_SIZE, total: list.total };
      return sendFeed(
        request,
        reply,
        ACQUISITION_TYPE,
        readingFeed(linksFor(reader), entries, page, updated),
        updated,
      );
    });

    scope.get('/opds/digests/:file', async (request, reply) => {
      const reader = await signIn(request);
      const id = fileId(request);
      // Not made (builds busy, or failed): the error goes to http/errors.ts, as every EPUB's.
      const epub = await digestAsEpub(store, reader.accountId, id, base(), {
        ...(deps.epubBuilds === undefined ? {} : { builds: deps.epubBuilds }),
        images: deps.epubImages,
      });
      if (epub === null) throw new ApiError('not_found', 'no such digest');
      return sendEpub(request, reply, epub.fileName, epub.bytes, epub.book.modified);
    });

    scope.get('/opds/reading/:file', async (request, reply) => {
      const reader = await signIn(request);
      const id = fileId(request);
      const epub = await readingEntryEpub(
        { store, images: deps.epubImages, epubBuilds: deps.epubBuilds },
        reader.accountId,
        id,
      );
      if (epub === null) throw new ApiError('not_found', 'no such entry in your reading list');
      return sendEpub(request, reply, epub.fileName, epub.bytes, epub.book.modified);
    });
    done();
  });
}

function sendEpub(
  request: FastifyRequest,
  reply: FastifyReply,
  fileName: string,
  bytes: Uint8Array,
  modified: string,
) {
  reply.header('content-disposition', `attachment; filename="${fileName}"`);
  return sendConditional(request, reply, {
    contentType: EPUB_MEDIA_TYPE,
    body: Buffer.from(bytes),
    lastModified: modified,
  });
}

/** `ID.epub` of the path: a whole number from 1; anything else is a 404. */
function fileId(request: FastifyRequest): number {
  const { file } = request.params as { file: string };
  const m = /^([1-9]\d{0,14})\.epub$/.exec(file);
  if (m === null) throw new ApiError('not_found', 'no such file in the catalogue');
  return Number(m[1]);
}

function pageWindow(page: number): { offset: number; limit: number } {
  return { offset: (page - 1) * OPDS_PAGE_SIZE, limit: OPDS_PAGE_SIZE };
}

/** The `page` parameter: 1 when absent; a 400 unless a whole number from 1 to MAX_PAGE. */
function pageNumber(request: FastifyRequest): number {
  const value = (request.query as Record<string, unknown>).page;
  if (value === undefined) return 1;
  if (typeof value !== 'string' || !/^[1-9]\d{0,4}$/.test(value) || Number(value) > MAX_PAGE) {
    throw new ApiError('bad_request', `page must be a whole number from 1 to ${MAX_PAGE}`);
  }
  return Number(value);
}

function queryString(request: FastifyRequest, name: string): string | null {
  const value = (request.query as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value.slice(0, 200) : null;
}

/** `Authorization: Basic …` as user and password (UTF-8, split at the first colon); null otherwise. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | null {
  if (header === undefined || header.length > MAX_AUTHORIZATION) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (m === null) return null;
  const decoded = Buffer.from(m[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
