import type { Command } from 'commander';
import { createApiClient, listApiClients, revokeApiClient } from '../accounts/apiClients.js';
import { operatorAccount } from '../accounts/authorize.js';
import { localeOf } from '../i18n/locale.js';
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
        const locale = localeOf(null);
        const { id, name, client_id: clientId } = made.client;
        io.out(locale.t('cli.client.created', { id: String(id), name, account: String(accountId) }));
        io.out(locale.t('cli.client.serverUrl', { url: config.baseUrl }));
        io.out(locale.t('cli.client.clientId', { clientId }));
        io.out(locale.t('cli.client.secret', { secret: made.clientSecret }));
        io.out(locale.t('cli.client.signIn'));
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
        const locale = localeOf(null);
        io.out(locale.t('cli.client.list.header'));
        for (const c of clients) {
          const lastUsed = c.last_used_at ?? locale.t('cli.key.never');
          io.out([c.id, c.name, c.client_id, c.created_at, lastUsed].join('\t'));
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
        io.out(localeOf(null).t('cli.client.revoked', { id: String(id), account: String(accountId) }));
      });
    });
}
