import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { localeOf } from '../i18n/locale.js';
import { BackupError, backupProblemWords, backupSqlite, parseDatabaseUrl } from '../store/db.js';
import { type Io, UsageError } from './context.js';

/** How PostgreSQL is backed up instead (docs/operating.md, "Backups"). */
const PG_DUMP_LINE = 'pg_dump --format=custom --file=tidings-$(date +%F).dump "$DATABASE_URL"';

export function backupCommand(program: Command, io: Io): void {
  const help = localeOf(null);
  program
    .command('backup')
    .description(help.t('cli.help.backup.about'))
    .argument('<file>', help.t('cli.help.backup.file'))
    .option('--force', help.t('cli.help.backup.force'))
    .option(
      '--json',
      help.t('cli.help.backup.json', { fields: '{"file", "bytes", "startedAt", "durationMs"}' }),
    )
    .action(async (file: string, opts: { force?: boolean; json?: boolean }) => {
      const target = parseDatabaseUrl(loadConfig(io.env).databaseUrl);
      if (target.engine === 'postgres') {
        const values = { command: 'backup', tool: 'pg_dump', line: PG_DUMP_LINE };
        throw new UsageError(localeOf(null).t('cli.backup.postgres', values), 2);
      }
      if (target.file === ':memory:') {
        throw new UsageError(localeOf(null).t('cli.backup.inMemory', { setting: 'DATABASE_URL' }), 2);
      }
      try {
        const r = await backupSqlite(target.file, file, { force: opts.force === true });
        const durationMs = Math.round(r.durationMs);
        if (opts.json === true) {
          io.out(
            JSON.stringify({
              file: r.file,
              bytes: r.bytes,
              startedAt: r.startedAt.toISOString(),
              durationMs,
            }),
          );
          return;
        }
        const wrote = { file: r.file, size: formatSize(r.bytes), pages: r.pages, ms: durationMs };
        io.out(localeOf(null).t('cli.backup.wrote', wrote));
      } catch (err) {
        if (!(err instanceof BackupError)) throw err;
        // What the operator typed (an existing or impossible FILE) is 2; a database missing or refused, 1.
        const failed = err.problem.kind === 'sqlite' || err.problem.kind === 'no_database';
        throw new UsageError(backupProblemWords(err.problem, localeOf(null)), failed ? 1 : 2);
      }
    });
}

function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
