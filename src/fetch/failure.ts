import type { FetchErrorCode } from '../errors.js';
import { undici } from './undici.js';

export type { FetchErrorCode } from '../errors.js';

/**
 * A failure with its code and a message for a person. fetchUrl returns failures as values; this class
 * exists to carry one through the places that only pass errors along: undici's connect callback and the
 * stages of a stream pipeline.
 */
export class FetchFailure extends Error {
  override name = 'FetchFailure';
  constructor(
    readonly code: FetchErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** "10 s", "500 ms": durations as the messages show them. */
export function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function errorCode(err: unknown): string {
  if (err instanceof Error && 'code' in err && typeof err.code === 'string') return err.code;
  return '';
}

/** Codes of the errors OpenSSL and Node report for a handshake or certificate that fails. */
const isTlsCode = (code: string): boolean =>
  /^ERR_(TLS|SSL)_/.test(code) || /CERT|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code);

/**
 * What went wrong with TLS, readably: Node's certificate messages are ("certificate has expired"), but
 * OpenSSL's are a line of internals, where the code says it better (ERR_SSL_WRONG_VERSION_NUMBER).
 */
function tlsDetail(code: string, message: string): string {
  return code.startsWith('ERR_SSL_')
    ? code.slice('ERR_SSL_'.length).toLowerCase().replaceAll('_', ' ')
    : message;
}

const CLOSED_EARLY = new Set(['ECONNRESET', 'EPIPE']);
const UNREACHABLE = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);

/**
 * Puts an error thrown while talking to `url` into the fetcher's words. The caller handles the whole-request
 * deadline first, since an aborted request surfaces as whatever error the abort happened to cause.
 */
export function describeError(err: unknown, url: URL, connectTimeoutMs: number): FetchFailure {
  if (err instanceof FetchFailure) return err;
  const host = url.host;
  // undici's classes, once a fetch loaded it (an error of undici's cannot exist before).
  const errors = undici.loaded()?.errors;
  if (errors !== undefined && err instanceof errors.ConnectTimeoutError) {
    return new FetchFailure(
      'timeout',
      `could not connect to ${host} within ${formatDuration(connectTimeoutMs)}`,
    );
  }
  if (errors !== undefined && err instanceof errors.HTTPParserError) {
    return new FetchFailure('connection', `${host} did not answer in valid HTTP`);
  }
  const code = errorCode(err);
  if ((errors !== undefined && err instanceof errors.SocketError) || CLOSED_EARLY.has(code)) {
    return new FetchFailure('connection', `${host} closed the connection before the response was complete`);
  }
  if (code === 'ECONNREFUSED') {
    return new FetchFailure('connection', `${host} refused the connection (nothing is listening there)`);
  }
  if (UNREACHABLE.has(code)) {
    return new FetchFailure('connection', `${host} cannot be reached from this machine`);
  }
  const message = err instanceof Error ? err.message : String(err);
  if (isTlsCode(code)) {
    return new FetchFailure('tls', `the secure connection to ${host} failed: ${tlsDetail(code, message)}`);
  }
  return new FetchFailure('connection', `could not fetch from ${host}: ${message}`);
}
