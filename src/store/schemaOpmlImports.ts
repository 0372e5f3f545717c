import type { Generated } from 'kysely';

/**
 * An account's last OPML import (migration 0026): 'running' until it ends, then 'finished'. In a file of
 * its own because schema.ts is at its 400 lines.
 */
export interface OpmlImportsTable {
  id: Generated<number>;
  account_id: number;
  state: 'running' | 'finished';
  /** Feeds of the file (each once); `done` of them handled in committed batches. */
  listed: number;
  done: number;
  /** ISO 8601 timestamps, as every Timestamp of schema.ts. */
  started_at: string;
  updated_at: string;
}
