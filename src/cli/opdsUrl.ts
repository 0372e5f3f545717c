import type { Command } from 'commander';
import { operatorAccount } from '../accounts/authorize.js';
import { newOpdsLink, revokeOpdsLink } from '../accounts/opds.js';
import { localeOf } from '../i18n/locale.js';
import { type Io, orGone, parseId, withStore } from './context.js';

/**
 * `tidings account opds-url --account ID [--revoke]`: makes the private link of the account's OPDS
 * catalogue and prints it, this once (only its hash is kept). A new link replaces the one before, which
 * stops working at its next request; `--revoke` ends it without a new one (the catalogue then opens only
 * with the account's password). docs/apps.md#opds-catalogue.
 */
export function opdsUrlCommand(account: Command, io: Io): void {
  const help = localeOf(null);
  account
    .command('opds-url')
    .description(help.t('cli.help.account.opdsUrl.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--revoke', help.t('cli.help.account.opdsUrl.revoke'))
    .action(async (opts: { account: string; revoke?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store, config) => {
        const id = await operatorAccount(store, accountId);
        if (opts.revoke === true) {
          const had = await revokeOpdsLink(store, id);
          io.err(localeOf(null).t(had ? 'cli.opdsUrl.revoked' : 'cli.opdsUrl.noLink'));
          return;
        }
        io.out(orGone(await newOpdsLink(store, id, config.baseUrl), accountId));
        io.err(localeOf(null).t('cli.opdsUrl.shownOnce'));
      });
    });
}
