import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { toErrorResponse } from '../errors.js';

/*
 * The wallabag API's errors, in wallabag's shapes (docs/apps.md): OAuth's `{error, error_description}` for
 * the token endpoint and a missing or bad token, `{error: {code, message}}` (the HTTP status as code) for
 * everything else. Which status a failure gets is decided once, by http/errors.ts toErrorResponse, as for
 * the seed API: only the shape differs.
 */

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'access_denied'
  | 'temporarily_unavailable';

/** A refusal in OAuth's shape, with its status and headers. */
export class OAuthError extends Error {
  override name = 'OAuthError';
  constructor(
    readonly status: number,
    readonly code: OAuthErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** Any other failure of a wallabag path: a status and a message. */
export class WallabagError extends Error {
  override name = 'WallabagError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function sendWallabagError(reply: FastifyReply, err: unknown, log: FastifyBaseLogger): FastifyReply {
  reply.header('cache-control', 'no-store').header('content-type', 'application/json; charset=utf-8');
  if (err instanceof OAuthError) {
    return reply
      .code(err.status)
      .headers(err.headers)
      .send({ error: err.code, error_description: err.message });
  }
  if (err instanceof WallabagError) {
    return reply.code(err.status).send({ error: { code: err.status, message: err.message } });
  }
  const res = toErrorResponse(err, log);
  return reply
    .code(res.status)
    .headers(res.headers)
    .send({ error: { code: res.status, message: res.body.message } });
}
