import type { Command } from 'commander';
import { localeOf } from '../i18n/locale.js';
import { createApiClient, listApiClients, revokeApiClient } from '../accounts/apiClients.js';
import { operatorAccount } from '../accounts/authorize.js';
import { type Io, orGone, parseId, withStore } from './context.js';

/**
 * `tidings client`: the apps an account lets in to the wallabag-compatible API (KOReader, the wallabag
 * apps, Wallabagger; docs/apps.md). The secret is printed once and stored hashed.
 */
export function clientCommands(program: Command, io: Io): void {
  const help = localeOf(null);
  const client = program.command('client').description(help.t('cli.help.client.about'));

  client
    .command('create')
    .description(help.t('cli.help.client.create.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .requiredOption('--name <name>', help.t('cli.help.client.create.name'))
    .option('--json', help.t('cli.help.common.jsonLine', { fields: '{"clientId", "clientSecret"}' }))
    .action(async (opts: { account: string; name: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store, config) => {
        const made = orGone(
          await createApiClient(store, await operatorAccount(store, accountId), opts.name, new Date()),
          accountId,
        );
        if (opts.json === true) {
          io.out(JSON.stringify({ clientId: made.client.client_id, clientSecret: made.clientSecret }));
          return;
        }
        io.out(`Created client ${made.client.id} (${made.client.name}) for account ${accountId}.`);
        io.out(`Server URL:    ${config.baseUrl}`);
        io.out(`Client ID:     ${made.client.client_id}`);
        io.out(`Client secret, shown only this once: ${made.clientSecret}`);
        io.out("Username and password: the account's name or e-mail address and its password.");
      });
    });

  client
    .command('list')
    .description(help.t('cli.help.client.list.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--json', help.t('cli.help.client.list.json'))
    .action(async (opts: { account: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const clients = await listApiClients(store, await operatorAccount(store, accountId));
        if (opts.json === true) {
          for (const c of clients) io.out(JSON.stringify(c));
          return;
        }
        io.out(['ID', 'NAME', 'CLIENT ID', 'CREATED', 'LAST SIGNED IN'].join('\t'));
        for (const c of clients) {
          io.out([c.id, c.name, c.client_id, c.created_at, c.last_used_at ?? 'never'].join('\t'));
        }
      });
    });

  client
    .command('revoke')
    .description(help.t('cli.help.client.revoke.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .argument('<clientId>', help.t('cli.help.client.revoke.clientId'))
    .action(async (clientIdArg: string, opts: { account: string }) => {
      const accountId = parseId(opts.account, '--account');
      const id = parseId(clientIdArg, 'CLIENT_ID');
      await withStore(io, async (store) => {
        await revokeApiClient(store, await operatorAccount(store, accountId), id);
        io.out(`Revoked client ${id} of account ${accountId}.`);
      });
    });
}
