import type { Command } from 'commander';
import { InputError, createAccountWithKey } from '../accounts/service.js';
import { allAccounts } from '../store/accounts.js';
import { type Io, UsageError, curlLines, withStore } from './context.js';

export function accountCommands(program: Command, io: Io): void {
  const account = program.command('account').description('manage accounts');

  account
    .command('create')
    .description('create an account and its first API key (the key is shown once)')
    .requiredOption('--name <name>', 'display name')
    .option('--email <addr>', 'where the digest is emailed')
    .option('--timezone <iana>', 'IANA time zone of the reader, e.g. Europe/Berlin', 'UTC')
    .option('--json', 'print exactly one JSON line {"id", "apiKey"}')
    .action(async (opts: { name: string; email?: string; timezone: string; json?: boolean }) => {
      await withStore(io, async (store, config) => {
        const { account, apiKey } = await createAccountWithKey(store, opts).catch((err: unknown) => {
          throw err instanceof InputError ? new UsageError(err.message, 2) : err;
        });
        if (opts.json === true) {
          io.out(JSON.stringify({ id: account.id, apiKey }));
          return;
        }
        io.out(`Created account ${account.id} (${account.name}).`);
        io.out(`API key, shown only this once: ${apiKey}`);
        io.out('Save a link with either variant of the API:');
        for (const line of curlLines(config.baseUrl, apiKey)) io.out(line);
      });
    });

  account
    .command('list')
    .description('list accounts')
    .option('--json', 'one JSON line per account')
    .action(async (opts: { json?: boolean }) => {
      await withStore(io, async (store) => {
        const accounts = await allAccounts(store.db);
        if (opts.json === true) {
          for (const a of accounts) io.out(JSON.stringify(a));
          return;
        }
        if (accounts.length === 0) {
          io.out('No accounts yet: tidings account create --name NAME');
          return;
        }
        io.out(['ID', 'NAME', 'EMAIL', 'TIMEZONE', 'CREATED'].join('\t'));
        for (const a of accounts) io.out([a.id, a.name, a.email ?? '-', a.timezone, a.created_at].join('\t'));
      });
    });
}
