import type { Command } from 'commander';
import { sharedEmailsCleared } from '../accounts/service.js';
import { localeOf } from '../i18n/locale.js';
import { clearedEmailSentence } from '../i18n/sharedSentences.js';
import { type Io, withStore } from './context.js';
import { migrateDatabase } from './database.js';

export function migrateCommand(program: Command, io: Io): void {
  const help = localeOf(null);
  program
    .command('migrate')
    .description(help.t('cli.help.migrate.about'))
    .action(async () => {
      await withStore(io, async (store, config) => {
        const results = await migrateDatabase(config, store);
        const locale = localeOf(null);
        for (const r of results) {
          const status = r.status === 'Success' ? 'applied' : r.status;
          io.out(locale.t('cli.migrate.migration', { name: r.migrationName, status }));
        }
        const done = results.length === 0 ? 'upToDate' : 'done';
        io.out(locale.t('cli.migrate.done', { engine: store.engine, done }));
        // Addresses several accounts shared, resolved by 0026: said on every run, for whoever upgraded.
        for (const c of await sharedEmailsCleared(store)) io.out(clearedEmailSentence(locale, c));
      });
    });
}
