import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { type EpubBuildError, isEpubBuildError } from '../digest/epub/builds.js';
import { type ErrorKind, TidingsError } from '../errors.js';
import { isDatabaseUnavailable, isDiskFull, noteDatabaseFailure } from '../store/db.js';
import { API_ERRORS } from './errorCodes.js';

export { API_ERRORS };

export type ApiErrorKind = keyof typeof API_ERRORS;

/** The API's answer to each kind of domain error: the one place where a TidingsError becomes HTTP. */
const FROM_DOMAIN: Record<ErrorKind, ApiErrorKind> = {
  url_missing: 'url_missing',
  url_invalid: 'url_invalid',
  url_too_long: 'url_too_long',
  title_invalid: 'title_invalid',
  queue_full: 'queue_full',
  // Only following and importing feeds, which the API does not do, reach a limit of this kind.
  limit_reached: 'bad_request',
  account_gone: 'key_invalid',
  invalid_input: 'bad_request',
  // The API sets no e-mail address; were it to, the address is what the client gave wrong.
  email_taken: 'bad_request',
  not_found: 'not_found',
  source_failed: 'bad_request',
};

/** A failure born in the HTTP transport itself (a missing key, a malformed body), with its own headers. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    /** Response headers that belong to this error, such as Allow or Retry-After. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export interface ErrorResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: { code: number; message: string };
}

/** Fastify's own errors, by code, as what the client did wrong. */
const FASTIFY_ERRORS: Record<string, [ApiErrorKind, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['body_too_large', 'the request body is larger than 64 KiB'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['bad_request', 'the Content-Length does not match the body'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['bad_request', 'the Content-Type header is not a valid media type'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['bad_request', 'the JSON body is empty'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['bad_request', 'the body is not valid JSON'],
  FST_ERR_CTP_INVALID_TYPE: ['bad_request', 'the Content-Type header is not valid'],
  FST_ERR_CTP_INVALID_CONTENT_TYPE: ['bad_request', 'the Content-Type header is not valid'],
};

const errorCode = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
    ? err.code
    : undefined;

/**
 * The one place where any failure becomes the JSON `{code, message}` a client sees. Unexpected errors
 * are logged in full and answered with a generic 500 that reveals nothing.
 */
export function toErrorResponse(err: unknown, log: FastifyBaseLogger): ErrorResponse {
  if (err instanceof ApiError) return { ...fromKind(err.kind, err.message), headers: err.headers };
  if (err instanceof TidingsError) return fromKind(FROM_DOMAIN[err.kind], err.message);
  if (isEpubBuildError(err)) return epubNotMade(err, log);
  const code = errorCode(err);
  const known = code === undefined ? undefined : FASTIFY_ERRORS[code];
  if (known !== undefined) return fromKind(known[0], known[1]);
  if (isDatabaseUnavailable(err)) {
    // A full disk is an outage too (503, tried again later), but one an operator must act on: logged at
    // error, and /readyz answers 503 until writes go through again (store/writeProbe.ts).
    const full = isDiskFull(err);
    noteDatabaseFailure(err);
    if (full) log.error({ err }, 'database disk full');
    else log.warn({ err }, 'database unavailable');
    return {
      ...fromKind(
        'unavailable',
        full
          ? 'the database cannot write: its disk is full; try again later'
          : 'the database is unavailable; try again shortly',
      ),
      headers: { 'retry-after': '5' },
    };
  }
  // Node's "aborted" (ECONNRESET without a syscall) on a request body the client stopped sending: the
  // client went away, which says nothing about the server. Nobody reads the answer.
  if (code === 'ECONNRESET') {
    log.debug({ err }, 'client closed the connection');
    return fromKind('bad_request', 'the request was aborted');
  }
  const status =
    typeof err === 'object' && err !== null && 'statusCode' in err ? Number(err.statusCode) : 500;
  if (status >= 400 && status < 500) {
    return fromKind(
      status === 404 ? 'not_found' : 'bad_request',
      err instanceof Error ? err.message : 'bad request',
    );
  }
  log.error({ err }, 'unexpected error');
  return fromKind('internal', 'internal error; the details are in the server log');
}

/**
 * An EPUB that was not made (digest/epub/builds.ts), whoever asked for it (a digest's download, the OPDS
 * catalogue, wallabag's export.epub): the builds busy is 503 with Retry-After (try again in a moment, logged
 * at info), a build that failed (its thread crashed or passed a limit) is 500 saying why, logged in full.
 */
function epubNotMade(err: EpubBuildError, log: FastifyBaseLogger): ErrorResponse {
  if (err.kind === 'busy') {
    const after = String(err.retryAfterSeconds);
    log.info({ reason: err.message }, 'EPUB refused: builds busy');
    return {
      ...fromKind('unavailable', `Tidings is making other EPUBs right now; try again in ${after} seconds`),
      headers: { 'retry-after': after },
    };
  }
  log.error({ err }, 'EPUB not made');
  return fromKind(
    'internal',
    `the EPUB could not be made (${err.message}); the details are in the server log`,
  );
}

export function fromKind(kind: ApiErrorKind, message: string): ErrorResponse {
  return { status: API_ERRORS[kind].status, headers: {}, body: { code: API_ERRORS[kind].code, message } };
}

export function sendErrorResponse(reply: FastifyReply, res: ErrorResponse): FastifyReply {
  return reply.code(res.status).headers(res.headers).header('cache-control', 'no-store').send(res.body);
}
