import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { AppError, type ErrorKind, errorCatalog } from '../errors.js';

export interface ErrorResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: { code: number; message: string };
}

/** Error codes of the database drivers that mean "try again shortly", not "bug". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'SQLITE_BUSY',
  '08000', // PostgreSQL connection_exception and its subclasses
  '08001',
  '08003',
  '08004',
  '08006',
  '3D000', // the database does not exist (dropped, or not created yet)
  '53300', // too many connections
  '57P01', // admin shutdown
  '57P02',
  '57P03', // cannot connect now (starting up)
]);

/** Fastify's own errors, by code, as what the client did wrong. */
const FASTIFY_ERRORS: Record<string, [ErrorKind, string]> = {
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
  if (err instanceof AppError)
    return { status: err.status, headers: err.headers, body: { code: err.code, message: err.message } };
  const code = errorCode(err);
  const known = code === undefined ? undefined : FASTIFY_ERRORS[code];
  if (known !== undefined) return fromKind(known[0], known[1]);
  if (code !== undefined && UNAVAILABLE_CODES.has(code)) {
    log.warn({ err }, 'database unavailable');
    return {
      ...fromKind('unavailable', 'the database is unavailable; try again shortly'),
      headers: { 'retry-after': '5' },
    };
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

export function fromKind(kind: ErrorKind, message: string): ErrorResponse {
  return { status: errorCatalog[kind].status, headers: {}, body: { code: errorCatalog[kind].code, message } };
}

export function sendErrorResponse(reply: FastifyReply, res: ErrorResponse): FastifyReply {
  return reply.code(res.status).headers(res.headers).header('cache-control', 'no-store').send(res.body);
}
