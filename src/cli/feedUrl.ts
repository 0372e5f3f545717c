import type { Command } from 'commander';
import { operatorAccount } from '../accounts/authorize.js';
import { digestFeedAddress, rotateDigestFeed } from '../accounts/digestToken.js';
import { localeOf } from '../i18n/locale.js';
import { type Io, orGone, parseId, withStore } from './context.js';

/**
 * `tidings account feed-url --account ID [--rotate]`: prints the private URL of the Atom feed of the
 * account's digests. `--rotate` replaces the token first: the old feed URL and every
 * "Read on the web" link already emailed stop working, on every instance, at their next request.
 */
export function feedUrlCommand(account: Command, io: Io): void {
  const help = localeOf(null);
  account
    .command('feed-url')
    .description(help.t('cli.help.account.feedUrl.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--rotate', help.t('cli.help.account.feedUrl.rotate'))
    .action(async (opts: { account: string; rotate?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store, config) => {
        const id = await operatorAccount(store, accountId);
        const url =
          opts.rotate === true
            ? await rotateDigestFeed(store, id, config.baseUrl)
            : await digestFeedAddress(store, id, config.baseUrl);
        io.out(orGone(url, accountId));
        if (opts.rotate === true) {
          io.err(localeOf(null).t('cli.feedUrl.rotated'));
        }
      });
    });
}
