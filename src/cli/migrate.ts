import type { Command } from 'commander';
import { localeOf } from '../i18n/locale.js';
import { describeClearedEmail, sharedEmailsCleared } from '../accounts/service.js';
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
        for (const r of results)
          io.out(`${r.migrationName}: ${r.status === 'Success' ? 'applied' : r.status}`);
        io.out(results.length === 0 ? `${store.engine}: schema is up to date` : `${store.engine}: done`);
        // Addresses several accounts shared, resolved by 0026: said on every run, for whoever upgraded.
        for (const c of await sharedEmailsCleared(store)) io.out(describeClearedEmail(c));
      });
    });
}
