import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { LogController } from 'fastify';
import { redactRequestUrl } from '../lib/redact.js';

/**
 * One log line per request, written when it completes, with the URL's secrets redacted (lib/redact.ts
 * redactRequestUrl: keys, secret parameters, signed links' tokens by route and by shape). Fastify's
 * default lines (and its "route not found" line) would print the raw URL, key included.
 */
export class RequestLogController extends LogController {
  /**
   * The completion line is built here from known fields (the URL already redacted, by the same rule as
   * the logger's `req` serializer, once per distinct URL), so it is written without pino's path redaction
   * or the `url` serializer, which would cost as much again as the rest of the line.
   */
  private readonly lines: FastifyBaseLogger;

  constructor(logger: FastifyBaseLogger) {
    super();
    this.lines = logger.child({}, { redact: [], serializers: { url: (url: unknown) => url } });
  }

  override incomingRequest(): void {
    // The completion line says everything.
  }

  override routeNotFound(): void {
    // Logged as a 404 in the completion line.
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const fields = {
      method: request.method,
      url: redactedUrl(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ip: request.ip,
    };
    // An error may carry anything: its line goes through the redacting request logger (reqId bound).
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else this.lines.info({ reqId: request.id, ...fields }, 'request');
  }
}

/** The last URL redacted, and the result: clients repeat the same URL, and redacting it means parsing it. */
let lastUrl = '';
let lastRedacted = '';

function redactedUrl(url: string): string {
  if (url !== lastUrl) {
    lastRedacted = redactRequestUrl(url);
    lastUrl = url;
  }
  return lastRedacted;
}
