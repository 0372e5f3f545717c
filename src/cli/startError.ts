/**
 * The database refused the connection at start (a wrong password, TLS the server does not offer), or could
 * not be reached within DATABASE_STARTUP_TIMEOUT_MS: the command exits 1 with this message alone. A file of
 * its own so that runCli can recognise it without loading the store.
 */
export class DatabaseStartError extends Error {
  override name = 'DatabaseStartError';
}
