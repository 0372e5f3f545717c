import type { Command } from 'commander';
import { operatorAccount } from '../accounts/authorize.js';
import { readerDeps } from '../articles/deps.js';
import { enrichOnce } from '../articles/enrich.js';
import { localeOf } from '../i18n/locale.js';
import { createLogger } from '../logger.js';
import { type Io, parseId, withStore } from './context.js';

export function enrichCommand(program: Command, io: Io): void {
  program
    .command('enrich')
    .description('read the saved pages that are due (title, text, image), once, and exit')
    .option('--once', 'one pass over the due pages, then exit (the default)')
    .option('--account <id>', "only this account's saved items and their pages")
    .option('--json', 'print the summary as one JSON line')
    .addHelpText(
      'after',
      [
        '',
        'Output with --json, one line:',
        '  {"linked", "pages", "read", "truncated", "retried", "failed", "leaseLost", "forgotten"}',
      ].join('\n'),
    )
    .action(async (opts: { once?: boolean; account?: string; json?: boolean }) => {
      const id = opts.account === undefined ? undefined : parseId(opts.account, '--account');
      await withStore(io, async (store, config) => {
        const accountId = id === undefined ? undefined : await operatorAccount(store, id);
        const deps = readerDeps(config, store, createLogger(config.logLevel));
        const summary = await enrichOnce(deps, accountId === undefined ? {} : { accountId });
        if (opts.json === true) {
          io.out(JSON.stringify(summary));
          return;
        }
        const { read, pages, truncated, retried, failed, linked, forgotten } = summary;
        const counts = { read, pages, truncated, retried, failed, linked, forgotten };
        io.out(localeOf(null).t('cli.enrich.summary', counts));
      });
    });
}
