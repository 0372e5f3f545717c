import type { FastifyInstance } from 'fastify';
import { newsletterAddress } from '../accounts/newsletters.js';
import type { InboundConfig } from '../config.js';
import { buildServer } from '../http/server.js';
import type { AccountId } from '../lib/authorized.js';
import type { Store } from '../store/db.js';
import { silentLogger } from './harness.js';

/** The inbound settings the newsletters' tests run with. */
export const TEST_INBOUND: InboundConfig = {
  domain: 'inbound.example',
  maxBytes: 10 * 1024 * 1024,
  secret: 'test-inbound-secret-0123456789',
  dailyLimit: 500,
};

export const TEST_BASE_URL = 'http://127.0.0.1:8080';

/** The app with POST /inbound/email on, its clock `now`. */
export function inboundServer(
  store: Store,
  options: { inbound?: Partial<InboundConfig>; now?: () => Date; queueLimit?: number } = {},
): FastifyInstance {
  return buildServer({
    config: {
      trustProxy: false,
      queueLimit: options.queueLimit ?? 10_000,
      baseUrl: TEST_BASE_URL,
      inbound: { ...TEST_INBOUND, ...options.inbound },
    },
    store,
    logger: silentLogger,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}

/** The account's inbound address, made as `tidings newsletters address` makes it. */
export function addressOfAccount(store: Store, accountId: AccountId, rotate = false): Promise<string> {
  return newsletterAddress(store, accountId, { domain: TEST_INBOUND.domain, rotate });
}

/** POSTs a raw message to /inbound/email with the test secret (or `secret`). */
export function postMessage(
  app: FastifyInstance,
  raw: Buffer,
  options: { secret?: string | null; contentType?: string } = {},
) {
  const secret = options.secret === undefined ? TEST_INBOUND.secret : options.secret;
  return app.inject({
    method: 'POST',
    url: '/inbound/email',
    headers: {
      'content-type': options.contentType ?? 'message/rfc822',
      ...(secret === null ? {} : { authorization: `Bearer ${secret}` }),
    },
    payload: raw,
  });
}
