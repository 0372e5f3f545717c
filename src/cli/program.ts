import { Command } from 'commander';
import type { Io } from './context.js';
import { helpLocale, translateCommander } from './help.js';

type Register = (program: Command, io: Io) => void;

/**
 * Each command module, loaded only when needed (issue 26): a command line naming one of its commands loads
 * that module alone (`serve` does not load the feed parser's CLI, `account` not the HTTP server), anything
 * else (`--help`, an unknown command) loads them all, in this order, which is the order of `--help`.
 */
const MODULES: readonly { commands: readonly string[]; load: () => Promise<Register> }[] = [
  { commands: ['serve'], load: async () => (await import('./serve.js')).serveCommand },
  { commands: ['worker', 'poll'], load: async () => (await import('./worker.js')).workerCommands },
  { commands: ['enrich'], load: async () => (await import('./enrich.js')).enrichCommand },
  { commands: ['opml'], load: async () => (await import('./opml.js')).opmlCommands },
  { commands: ['import'], load: async () => (await import('./readingImport.js')).importCommand },
  { commands: ['migrate'], load: async () => (await import('./migrate.js')).migrateCommand },
  { commands: ['backup'], load: async () => (await import('./backup.js')).backupCommand },
  { commands: ['account'], load: async () => (await import('./account.js')).accountCommands },
  { commands: ['key'], load: async () => (await import('./key.js')).keyCommands },
  { commands: ['client'], load: async () => (await import('./client.js')).clientCommands },
  { commands: ['feed'], load: async () => (await import('./feed.js')).feedCommands },
  { commands: ['digest'], load: async () => (await import('./digest.js')).digestCommands },
  { commands: ['search'], load: async () => (await import('./search.js')).searchCommand },
  {
    commands: ['newsletters'],
    load: async () => (await import('./newsletters.js')).newslettersCommands,
  },
  { commands: ['healthcheck'], load: async () => (await import('./healthcheck.js')).healthcheckCommand },
];

/** The command modules' top-level commands, for the test that keeps MODULES true. */
export const COMMAND_MODULES: readonly (readonly string[])[] = MODULES.map((m) => m.commands);

/** The program for `args` (without the leading `node tidings`); all commands when `args` is not given. */
export async function buildProgram(io: Io, args?: readonly string[]): Promise<Command> {
  // --help in the operator's language: set before the commands' texts are written.
  const help = helpLocale(io.env);
  const program = translateCommander(new Command('tidings'), help)
    .description(help.t('cli.help.tidings'))
    .version('0.1.0', '-V, --version', help.t('cli.help.version'))
    // Errors become exit codes in runCli instead of process.exit (inherited by every subcommand).
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
  const first = args?.[0];
  const one = MODULES.find((m) => first !== undefined && m.commands.includes(first));
  const registers = await Promise.all((one === undefined ? MODULES : [one]).map((m) => m.load()));
  for (const register of registers) register(program, io);
  return program;
}
