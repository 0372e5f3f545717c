import type { Command } from 'commander';
import { describeClearedEmail, sharedEmailsCleared } from '../accounts/service.js';
import { type Io, withStore } from './context.js';
import { migrateDatabase } from './database.js';

export function migrateCommand(program: Command, io: Io): void {
  program
    .command('migrate')
    .description('bring the database schema up to date (serve also does this on start)')
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
