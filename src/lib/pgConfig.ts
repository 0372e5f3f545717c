/**
 * How a PostgreSQL URL and the DATABASE_* settings become node-postgres's pool options. Tidings decides
 * TLS itself (docs/operating.md, "PostgreSQL: TLS") rather than leaving `sslmode` to pg-connection-string,
 * which treats `require` and `verify-ca` as `verify-full` today, warns on stderr, and plans to change
 * their meaning in its next major version.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { PoolConfig } from 'pg';
import { ConfigError } from '../config.js';
import type { ConfigFacts } from '../configProblems.js';

export interface PgOptions {
  /** Most connections the pool opens. */
  poolSize: number;
  /** A PEM file of the certificate authorities that sign the server's certificate (DATABASE_CA_FILE). */
  caFile?: string | null;
  /** Sent as the session's statement_timeout; 0: none (the server's own setting applies). */
  statementTimeoutMs?: number;
}

export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
type SslMode = (typeof SSL_MODES)[number];

/** The query parameters Tidings reads for TLS; they are taken out of the URL node-postgres is given. */
const TLS_PARAMS = ['ssl', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey'] as const;

function invalid(setting: string, message: string, facts: ConfigFacts): ConfigError {
  return new ConfigError([{ variable: setting, message, facts }]);
}

function readPem(setting: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const reason = err instanceof Error && 'code' in err ? String(err.code) : String(err);
    throw invalid(setting, `cannot read ${file} (${reason})`, {
      reason: 'file_unreadable',
      file,
      code: reason,
    });
  }
}

/**
 * The TLS mode a URL asks for: its `sslmode` (libpq's names; `prefer` and `allow` are refused, as
 * node-postgres cannot fall back from TLS to a plain connection), else pg's `ssl=true|false`, else
 * `verify-full` when a CA is given and `disable` when not.
 */
function sslModeOf(params: URLSearchParams, hasCa: boolean): SslMode {
  const mode = params.get('sslmode');
  if (mode !== null) {
    if ((SSL_MODES as readonly string[]).includes(mode)) return mode as SslMode;
    const modes = SSL_MODES.join(', ');
    throw invalid(
      'DATABASE_URL',
      `sslmode=${mode} is not supported; use ${modes} (docs/operating.md#postgresql-tls)`,
      {
        reason: 'sslmode',
        mode,
        modes,
      },
    );
  }
  const ssl = params.get('ssl');
  if (ssl === 'true' || ssl === '1') return 'verify-full';
  if (ssl === 'false' || ssl === '0') return 'disable';
  return hasCa ? 'verify-full' : 'disable';
}

/** node-postgres's `ssl` option for a mode: false, or what tls.connect is given. */
function tlsOptions(
  mode: SslMode,
  ca: string | undefined,
  params: URLSearchParams,
): false | ConnectionOptions {
  if (mode === 'disable') return false;
  const options: ConnectionOptions = {};
  if (ca !== undefined) options.ca = ca;
  const cert = params.get('sslcert');
  const key = params.get('sslkey');
  if (cert !== null) options.cert = readPem('DATABASE_URL sslcert', cert);
  if (key !== null) options.key = readPem('DATABASE_URL sslkey', key);
  // require: encrypted, the certificate unchecked (libpq's meaning) unless a CA is given, when it is
  // checked as verify-ca checks it. verify-ca: signed by the CA, any host name. verify-full: also the name.
  if (mode === 'require' && ca === undefined) options.rejectUnauthorized = false;
  if (mode === 'require' || mode === 'verify-ca') options.checkServerIdentity = () => undefined;
  return options;
}

/**
 * The pool options for a `postgres://` URL; throws ConfigError for a TLS setting it cannot honour. A URL
 * without TLS parameters, and no DATABASE_CA_FILE, goes to node-postgres as it is.
 */
export function pgPoolConfig(url: string, options: PgOptions): PoolConfig {
  const timeout = options.statementTimeoutMs ?? 0;
  const common: PoolConfig = {
    max: options.poolSize,
    ...(timeout > 0 ? { statement_timeout: timeout } : {}),
  };
  const at = url.indexOf('?');
  const params = new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
  const caFile = options.caFile ?? null;
  if (caFile === null && !TLS_PARAMS.some((name) => params.has(name))) {
    return { connectionString: url, ...common };
  }
  const rootcert = params.get('sslrootcert');
  const ca =
    caFile !== null
      ? readPem('DATABASE_CA_FILE', caFile)
      : rootcert !== null && rootcert !== 'system'
        ? readPem('DATABASE_URL sslrootcert', rootcert)
        : undefined;
  const ssl = tlsOptions(sslModeOf(params, ca !== undefined), ca, params);
  for (const name of TLS_PARAMS) params.delete(name);
  const rest = params.toString();
  const base = at === -1 ? url : url.slice(0, at);
  return { connectionString: rest === '' ? base : `${base}?${rest}`, ssl, ...common };
}
