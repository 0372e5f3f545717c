import type { Command } from 'commander';
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
      });
    });
}
