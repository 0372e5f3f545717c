import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { InboundConfig } from '../config.js';
import { lazy } from '../lib/lazy.js';
import type { IngestResult, NewsletterDeps } from '../newsletters/ingest.js';
import type { Store } from '../store/db.js';
import { bearerDigest, requireBearer } from './bearer.js';
import { ApiError, type ApiErrorKind, fromKind, sendErrorResponse, toErrorResponse } from './errors.js';

/**
 * `POST /inbound/email` (docs/newsletters.md): a mail provider's inbound webhook, or a worker, hands over
 * one raw message (RFC 5322 bytes, `Content-Type: message/rfc822`) with `Authorization: Bearer
 * <TIDINGS_INBOUND_SECRET>`. The message goes to the pipeline every way in shares (newsletters/ingest.ts),
 * addressed to the accounts among its To, Cc, Delivered-To and X-Original-To. 202 once it is stored
 * (committed), and for a message already taken in (a retried webhook is answered as the first time);
 * anything else is a `{code, message}` error: 401 (no or another secret, checked before the body is read),
 * 413 (over TIDINGS_INBOUND_MAX_BYTES), 404 (no account's address among the recipients), 400 (malformed),
 * 422 (mail Tidings sent), 429 (the account's daily limit), 409 (its queue is full). Without a secret
 * configured the route is not there (404).
 */

export interface InboundDeps {
  store: Store;
  logger: Logger;
  config: { baseUrl: string; queueLimit: number; inbound?: InboundConfig | undefined };
  /** For tests: the pipeline's clock. */
  now?: () => Date;
}

/** The pipeline, loaded by the first message: an idle serve does without it (issue 26). */
const pipelineModule = lazy(() => import('../newsletters/ingest.js'));

const REFUSALS: Record<Exclude<IngestResult['outcome'], 'stored' | 'duplicate'>, ApiErrorKind> = {
  'no-such-recipient': 'recipient_unknown',
  'too-large': 'body_too_large',
  malformed: 'message_malformed',
  'our-own-mail': 'mail_loop',
  'over-daily-limit': 'rate_limited',
  'queue-full': 'queue_full',
};

export function registerInbound(app: FastifyInstance, deps: InboundDeps): void {
  const inbound = deps.config.inbound;
  if (inbound?.secret == null) return;
  const expected = bearerDigest(inbound.secret);
  const pipeline: NewsletterDeps = {
    store: deps.store,
    log: deps.logger,
    baseUrl: deps.config.baseUrl,
    inbound,
    queueLimit: deps.config.queueLimit,
    ...(deps.now === undefined ? {} : { now: deps.now }),
  };
  void app.register((scope, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'message/rfc822',
      { parseAs: 'buffer', bodyLimit: inbound.maxBytes },
      (_request, body, next) => {
        next(null, body);
      },
    );
    scope.setErrorHandler((err, request, reply) => {
      const tooLarge = (err as { code?: unknown }).code === 'FST_ERR_CTP_BODY_TOO_LARGE';
      const res = tooLarge
        ? fromKind(
            'body_too_large',
            `the message is larger than ${inbound.maxBytes.toLocaleString('en')} bytes`,
          )
        : toErrorResponse(err, request.log);
      return sendErrorResponse(reply, res);
    });
    scope.post(
      '/inbound/email',
      {
        bodyLimit: inbound.maxBytes,
        // The secret before the body: a stranger's megabytes are never read.
        onRequest: (request, _reply, next) => {
          try {
            requireBearer(request.headers.authorization, expected, {
              missing: 'send the inbound secret as Authorization: Bearer <TIDINGS_INBOUND_SECRET>',
              invalid: 'the inbound secret is not valid',
            });
          } catch (err) {
            next(err as Error);
            return;
          }
          next();
        },
      },
      async (request, reply) => {
        const raw = request.body;
        if (!Buffer.isBuffer(raw) || raw.byteLength === 0) {
          throw new ApiError(
            'message_malformed',
            'send the raw message as the body, Content-Type: message/rfc822',
          );
        }
        const { ingestMessage } = await pipelineModule();
        const result = await ingestMessage(pipeline, raw, { recipients: [], via: 'http' });
        if (result.outcome === 'stored' || result.outcome === 'duplicate') {
          return reply.status(202).send({ outcome: result.outcome, accounts: result.accounts.length });
        }
        const headers: Record<string, string> =
          result.outcome === 'over-daily-limit' ? { 'retry-after': '3600' } : {};
        throw new ApiError(REFUSALS[result.outcome], result.reason, headers);
      },
    );
    done();
  });
}
