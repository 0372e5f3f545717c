import type { Command } from 'commander';
import { disableAccount, enableAccount } from '../accounts/admin.js';
import { removeAccount } from '../accounts/deleteAccount.js';
import { localeOf } from '../i18n/locale.js';
import type { Account } from '../store/accounts.js';
import { type Io, UsageError, parseId, withStore } from './context.js';

/**
 * An account as one JSON line: `language` only when the account has one of its own, so the line of an
 * account that never chose stays what it was before languages (scripts read it).
 */
export function accountJson(a: Account): string {
  const { language, ...rest } = a;
  return JSON.stringify(language === null ? rest : a);
}

/**
 * `tidings account disable|enable|delete`: the operator's side of what an administrator does on the web's
 * Accounts page, with the same rules (src/accounts/admin.ts, deleteAccount.ts).
 */
export function accountAdminCommands(account: Command, io: Io): void {
  const help = localeOf(null);
  const report = (a: Account, json: boolean, done: 'disabled' | 'enabled'): void => {
    const words = () => localeOf(null).t('cli.account.admin.done', { id: String(a.id), name: a.name, done });
    io.out(json ? accountJson(a) : words());
  };

  account
    .command('disable')
    .description(help.t('cli.help.account.disable.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--json', help.t('cli.help.common.jsonAccount'))
    .action(async (opts: { account: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const a = await disableAccount(store, accountId);
        report(a, opts.json === true, 'disabled');
      });
    });

  account
    .command('enable')
    .description(help.t('cli.help.account.enable.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--json', help.t('cli.help.common.jsonAccount'))
    .action(async (opts: { account: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const a = await enableAccount(store, accountId);
        report(a, opts.json === true, 'enabled');
      });
    });

  account
    .command('delete')
    .description(help.t('cli.help.account.delete.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--yes', help.t('cli.help.account.delete.yes'))
    .action(async (opts: { account: string; yes?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      if (opts.yes !== true) {
        throw new UsageError(
          localeOf(null).t('cli.account.deleteConfirm', { id: String(accountId), flag: '--yes' }),
          2,
        );
      }
      await withStore(io, async (store) => {
        await removeAccount(store, accountId);
        io.out(localeOf(null).t('cli.account.deleted', { id: String(accountId) }));
      });
    });
}
