import type { Command } from 'commander';
import { displayPrefix } from '../accounts/keys.js';
import { issueKey, listKeys, revokeAnyKey } from '../accounts/apiKeys.js';
import { operatorAccount } from '../accounts/authorize.js';
import { localeOf } from '../i18n/locale.js';
import { type Io, UsageError, curlLines, orGone, parseId, withStore } from './context.js';

export function keyCommands(program: Command, io: Io): void {
  const help = localeOf(null);
  const key = program.command('key').description(help.t('cli.help.key.about'));

  key
    .command('create')
    .description(help.t('cli.help.key.create.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--name <name>', help.t('cli.help.key.create.name'), 'key')
    .option('--json', help.t('cli.help.common.jsonLine', { fields: '{"id", "apiKey"}' }))
    .action(async (opts: { account: string; name: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store, config) => {
        const issued = orGone(
          await issueKey(store, await operatorAccount(store, accountId), opts.name),
          accountId,
        );
        if (opts.json === true) {
          io.out(JSON.stringify({ id: issued.keyInfo.id, apiKey: issued.apiKey }));
          return;
        }
        // The operator's language (TIDINGS_LANGUAGE); --json stays as it is.
        const locale = localeOf(null);
        io.out(
          locale.t('cli.key.created', {
            id: String(issued.keyInfo.id),
            name: issued.keyInfo.name,
            account: String(accountId),
          }),
        );
        io.out(locale.t('cli.key.shownOnce', { key: issued.apiKey }));
        for (const line of curlLines(config.baseUrl, issued.apiKey)) io.out(line);
      });
    });

  key
    .command('list')
    .description(help.t('cli.help.key.list.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--json', help.t('cli.help.key.list.json'))
    .action(async (opts: { account: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const keys = await listKeys(store, await operatorAccount(store, accountId));
        if (opts.json === true) {
          for (const k of keys) io.out(JSON.stringify({ ...k, prefix: displayPrefix(k.prefix) }));
          return;
        }
        const locale = localeOf(null);
        io.out(locale.t('cli.key.list.header'));
        for (const k of keys) {
          const status =
            k.revoked_at === null
              ? locale.t('cli.key.active')
              : locale.t('cli.key.revokedAt', { at: k.revoked_at });
          const lastUsed = k.last_used_at ?? locale.t('cli.key.never');
          io.out([k.id, k.name, displayPrefix(k.prefix), k.created_at, lastUsed, status].join('\t'));
        }
      });
    });

  key
    .command('revoke')
    .description(help.t('cli.help.key.revoke.about'))
    .argument('<keyId>', help.t('cli.help.key.revoke.keyId'))
    .action(async (keyIdArg: string) => {
      const keyId = parseId(keyIdArg, 'KEY_ID');
      await withStore(io, async (store) => {
        const locale = localeOf(null);
        const result = await revokeAnyKey(store, keyId);
        if (result === null) throw new UsageError(locale.t('cli.key.noKey', { id: String(keyId) }));
        const info = result.key;
        if (!result.revoked) {
          io.out(locale.t('cli.key.alreadyRevoked', { id: String(keyId), at: info.revoked_at ?? '' }));
          return;
        }
        io.out(
          locale.t('cli.key.revoked', {
            id: String(keyId),
            name: info.name,
            prefix: displayPrefix(info.prefix),
            account: String(info.account_id),
          }),
        );
      });
    });
}
