import type { Command } from 'commander';
import { digestFeedUrl, ensureDigestToken, rotateDigestToken } from '../digest/token.js';
import { type Io, UsageError, parseId, withStore } from './context.js';

/**
 * `tidings account feed-url --account ID [--rotate]`: prints the private URL of the Atom feed of the
 * account's digests (made on first use). `--rotate` replaces the token first: the old feed URL and every
 * "Read on the web" link already emailed stop working, on every instance, at their next request.
 */
export function feedUrlCommand(account: Command, io: Io): void {
  account
    .command('feed-url')
    .description("print the private URL of the Atom feed of an account's digests")
    .requiredOption('--account <id>', 'account ID')
    .option('--rotate', 'replace the token: the old URL (and the links in sent digests) stop working')
    .action(async (opts: { account: string; rotate?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store, config) => {
        const token =
          opts.rotate === true
            ? await rotateDigestToken(store.db, accountId)
            : await ensureDigestToken(store.db, accountId);
        if (token === null) throw new UsageError(`no account ${accountId}`);
        io.out(digestFeedUrl(config.baseUrl, token));
        if (opts.rotate === true) {
          io.err(
            'The token was replaced: the previous feed URL and the web links in earlier emails no longer work.',
          );
        }
      });
    });
}
