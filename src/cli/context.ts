import { type Config, loadConfig } from '../config.js';
import { localeOf, setOperatorLanguage } from '../i18n/locale.js';
import { TidingsError } from '../errors.js';
import type { Store } from '../store/db.js';

/** What a command writes to; tests pass their own. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /** Bytes to stdout as they are (`digest epub`); absent where a command's output is only lines. */
  outBytes?: (data: Uint8Array) => void;
}

export const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  outBytes: (data) => process.stdout.write(data),
};

/** A failure the user can fix; main prints its message alone and exits with `exitCode`. */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * Runs a command against an up-to-date database and always closes it. An unreachable database is not
 * waited for: the command fails at once, with the reason (DatabaseStartError).
 */
export async function withStore<T>(io: Io, fn: (store: Store, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env);
  setOperatorLanguage(config.language);
  // Loaded here, not with this module: `serve` answers /healthz before the store's modules are loaded.
  const [{ openStore }, { migrateDatabase, storeOptions, waitForDatabase }] = await Promise.all([
    import('../store/db.js'),
    import('./database.js'),
  ]);
  const store = openStore(config.databaseUrl, { ...storeOptions(config), poolSize: 2 });
  try {
    await waitForDatabase(store, 0, { warn: () => undefined });
    await migrateDatabase(config, store);
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

/** A positive whole number the operator typed for `what`: a flag or an argument's name; 'digest': a digest's ID. */
export function parseId(value: string, what: string): number {
  if (!/^\d{1,15}$/.test(value))
    throw new UsageError(localeOf(null).t('cli.error.notWholeNumber', { what, value }), 2);
  return Number(value);
}

/** The two ready-to-paste curl lines for a key. */
export function curlLines(baseUrl: string, apiKey: string): string[] {
  return [
    `  curl -X POST '${baseUrl}/api/v1/articles?apiKey=${apiKey}' -d url=https://example.com/`,
    `  curl -X POST '${baseUrl}/api?api_key=${apiKey}' -d url=https://example.com/`,
  ];
}

/** What a service returned for an account the operator named, or not_found when it went away meanwhile. */
export function orGone<T>(value: T | null, accountId: number): T {
  if (value === null) throw noAccount(accountId);
  return value;
}

/** The refusal of an account that is not there (or went away meanwhile), in the operator's language. */
export const noAccount = (accountId: number): TidingsError =>
  new TidingsError('not_found', localeOf(null).t('cli.error.noAccount', { id: String(accountId) }));

/** A file the operator named that cannot be read: the reason as the system gave it. */
export const cannotRead = (file: string, err: unknown): UsageError =>
  new UsageError(
    localeOf(null).t('cli.error.cannotRead', {
      file,
      reason: err instanceof Error ? err.message : String(err),
    }),
  );

/** A file the operator named that a service refused (not OPML, not an export): its name and why. */
export const fileRefused = (file: string, reason: string): UsageError =>
  new UsageError(localeOf(null).t('cli.error.fileRefused', { file, reason }));

/** A listener that cannot take its port (in use, not allowed): exit 1, with the settings that move it. */
export function cannotListen(
  what: 'http' | 'mail' | 'metrics',
  address: string,
  code: unknown,
  [port, host]: readonly [string, string],
): UsageError {
  const values = { what, address, code: String(code), port, host };
  return new UsageError(localeOf(null).t('cli.serve.cannotListen', values));
}
