/**
 * Every error a client can see, with its HTTP status and its stable numeric code.
 * Codes are part of the public API (docs/api.md): never renumber one, only add.
 */
export const errorCatalog = {
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
} as const satisfies Record<string, { status: number; code: number }>;

export type ErrorKind = keyof typeof errorCatalog;

/** A failure that is the client's to see: its kind picks the status and code, its message is shown as is. */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Response headers that belong to this error, such as Allow or Retry-After. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }

  get status(): number {
    return errorCatalog[this.kind].status;
  }

  get code(): number {
    return errorCatalog[this.kind].code;
  }
}

export function errorBody(kind: ErrorKind, message: string): { code: number; message: string } {
  return { code: errorCatalog[kind].code, message };
}
