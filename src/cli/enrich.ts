import type { Command } from 'commander';
import { operatorAccount } from '../accounts/authorize.js';
import { readerDeps } from '../articles/deps.js';
import { enrichOnce } from '../articles/enrich.js';
import { localeOf } from '../i18n/locale.js';
import { createLogger } from '../logger.js';
import { type Io, parseId, withStore } from './context.js';

export function enrichCommand(program: Command, io: Io): void {
  const help = localeOf(null);
  program
    .command('enrich')
    .description(help.t('cli.help.enrich.about'))
    .option('--once', help.t('cli.help.enrich.once'))
    .option('--account <id>', help.t('cli.help.enrich.account'))
    .option('--json', help.t('cli.help.common.jsonSummary'))
    .addHelpText(
      'after',
      help.t('cli.help.enrich.after', {
        fields: '{"linked", "pages", "read", "truncated", "retried", "failed", "leaseLost", "forgotten"}',
      }),
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
