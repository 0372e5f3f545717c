// A file of its own, without imports, so that the starting server (starting.ts) can use it.
/**
 * Every error an API client can see, with its HTTP status and its stable numeric code.
 * Codes are part of the public API (docs/api.md): never renumber one, only add.
 */
export const API_ERRORS = {
  url_missing: { status: 400, code: 40001 },
  url_invalid: { status: 400, code: 40002 },
  url_too_long: { status: 400, code: 40003 },
  title_invalid: { status: 400, code: 40004 },
  body_malformed: { status: 400, code: 40005 },
  key_missing: { status: 401, code: 40101 },
  key_invalid: { status: 401, code: 40102 },
  not_found: { status: 404, code: 40401 },
  method_not_allowed: { status: 405, code: 40501 },
  queue_full: { status: 409, code: 40901 },
  body_too_large: { status: 413, code: 41301 },
  request_too_large: { status: 431, code: 43101 },
  rate_limited: { status: 429, code: 42901 },
  bad_request: { status: 400, code: 40000 },
  internal: { status: 500, code: 50001 },
  unavailable: { status: 503, code: 50301 },
  // POST /inbound/email (docs/newsletters.md)
  message_malformed: { status: 400, code: 40006 },
  recipient_unknown: { status: 404, code: 40402 },
  mail_loop: { status: 422, code: 42201 },
  // The media proxy (/media/…): an image it will not fetch, could not fetch, or not in time.
  forbidden: { status: 403, code: 40301 },
  bad_gateway: { status: 502, code: 50201 },
  gateway_timeout: { status: 504, code: 50401 },
} as const satisfies Record<string, { status: number; code: number }>;
