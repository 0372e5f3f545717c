/**
 * What DATABASE_URL names, and the check that the DATABASE_* settings can be used at all, which `serve` makes
 * before it listens (a configuration error is exit 2 before anything is bound; issue 33). Opening the
 * store (store/db.ts) applies the same rules, so a command that opens it at once needs no check of its own.
 */
import { fileURLToPath } from 'node:url';
import { type Config, ConfigError } from '../config.js';
import { pgPoolConfig } from './pgConfig.js';
import { redactUrl } from './redact.js';

export type DatabaseTarget = { engine: 'sqlite'; file: string } | { engine: 'postgres'; url: string };

/** `postgres://` / `postgresql://` → PostgreSQL; `sqlite:PATH`, `file:PATH` or a plain path → SQLite. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//i.test(url)) return { engine: 'postgres', url };
  if (/^sqlite:/i.test(url)) {
    const rest = url.slice('sqlite:'.length);
    return {
      engine: 'sqlite',
      file: rest.startsWith('//') ? rest.slice(2) || ':memory:' : rest || ':memory:',
    };
  }
  if (/^file:/i.test(url)) return { engine: 'sqlite', file: fileURLToPath(url) };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    const shown = redactUrl(url);
    throw new ConfigError(
      [
        {
          variable: 'DATABASE_URL',
          message: `unsupported scheme in ${shown}: use a file path, sqlite:PATH or postgres://`,
          facts: { reason: 'database_scheme', url: shown },
        },
      ],
      `unsupported DATABASE_URL scheme in ${shown}: use a file path, sqlite:PATH or postgres://`,
    );
  }
  return { engine: 'sqlite', file: url };
}

/**
 * Throws the ConfigError opening the database would throw, without opening it (nothing is connected to,
 * and no driver loaded): an unsupported scheme, a CA or certificate file that cannot be read, an `sslmode`
 * that cannot be honoured, in DATABASE_URL or DATABASE_DIRECT_URL.
 */
export function checkDatabaseSettings(
  config: Pick<Config, 'databaseUrl' | 'databaseDirectUrl' | 'databaseCaFile'>,
): void {
  for (const url of [config.databaseUrl, config.databaseDirectUrl]) {
    if (url === null) continue;
    const target = parseDatabaseUrl(url);
    if (target.engine === 'postgres')
      pgPoolConfig(target.url, { poolSize: 1, caFile: config.databaseCaFile });
  }
}
