import { Command } from 'commander';
import { accountCommands } from './account.js';
import { backupCommand } from './backup.js';
import type { Io } from './context.js';
import { digestCommands } from './digest.js';
import { enrichCommand } from './enrich.js';
import { feedCommands } from './feed.js';
import { healthcheckCommand } from './healthcheck.js';
import { keyCommands } from './key.js';
import { migrateCommand } from './migrate.js';
import { opmlCommands } from './opml.js';
import { importCommand } from './readingImport.js';
import { searchCommand } from './search.js';
import { serveCommand } from './serve.js';
import { workerCommands } from './worker.js';

export function buildProgram(io: Io): Command {
  const program = new Command('tidings')
    .description('A self-hosted feed reader whose output is one calm daily digest.')
    .version('0.1.0')
    .showHelpAfterError()
    // Errors become exit codes in runCli instead of process.exit (inherited by every subcommand).
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
  serveCommand(program, io);
  workerCommands(program, io);
  enrichCommand(program, io);
  opmlCommands(program, io);
  importCommand(program, io);
  migrateCommand(program, io);
  backupCommand(program, io);
  accountCommands(program, io);
  keyCommands(program, io);
  feedCommands(program, io);
  digestCommands(program, io);
  searchCommand(program, io);
  healthcheckCommand(program, io);
  return program;
}
