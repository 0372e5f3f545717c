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
  const report = (a: Account, json: boolean, done: 'disabled' | 'enabled'): void => {
    const words = () => localeOf(null).t('cli.account.admin.done', { id: String(a.id), name: a.name, done });
    io.out(json ? accountJson(a) : words());
  };

  account
    .command('disable')
    .description('disable an account: no sign-in, its API keys refused, no digests (nothing is deleted)')
    .requiredOption('--account <id>', 'account ID')
    .option('--json', 'print the account afterwards as one JSON line')
    .action(async (opts: { account: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const a = await disableAccount(store, accountId);
        report(a, opts.json === true, 'disabled');
      });
    });

  account
    .command('enable')
    .description('enable a disabled account again')
    .requiredOption('--account <id>', 'account ID')
    .option('--json', 'print the account afterwards as one JSON line')
    .action(async (opts: { account: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const a = await enableAccount(store, accountId);
        report(a, opts.json === true, 'enabled');
      });
    });

  account
    .command('delete')
    .description(
      'delete an account with everything in it (its queue, feeds, digests, keys); cannot be undone',
    )
    .requiredOption('--account <id>', 'account ID')
    .option('--yes', 'confirm: delete it now')
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
