import type { Kysely } from 'kysely';
import { TidingsError } from '../errors.js';
import type { Database } from './schema.js';

/**
 * E-mail addresses are unique across accounts whatever their case: migration 0026's unique index on
 * lower(email) is the rule, and a write that would break it is answered `email_taken` (the one check: a
 * look-up before the write could not see a concurrent one).
 */
const INDEX = 'accounts_email_lower_key';

export const EMAIL_TAKEN_MESSAGE = 'that e-mail address is already used by another account';

/** Rethrows a write's failure, as `email_taken` when it broke the unique index of e-mail addresses. */
export function emailTaken(err: unknown): never {
  if (breaksEmailIndex(err)) throw new TidingsError('email_taken', EMAIL_TAKEN_MESSAGE, { cause: err });
  throw err;
}

/** SQLite: "UNIQUE constraint failed: index 'accounts_email_lower_key'"; PostgreSQL: 23505 and the index. */
function breaksEmailIndex(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, constraint, message } = err as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505') return constraint === INDEX;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string' && message.includes(INDEX);
}

/** Whether an account has this e-mail address (any case), other than `exceptAccountId`. */
export async function emailInUse(
  db: Kysely<Database>,
  email: string,
  exceptAccountId: number | null = null,
): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(email)])))
    .$if(exceptAccountId !== null, (qb) => qb.where('id', '!=', exceptAccountId ?? 0))
    .executeTakeFirst();
  return row !== undefined;
}

/** An address migration 0026 cleared from an account that shared it with an older one. */
export interface ClearedEmail {
  account: number;
  name: string;
  email: string;
  keptBy: number;
}

/** What migration 0026 recorded (its meta row `emails_cleared_by_0026`); empty when nothing was shared. */
export async function emailsClearedByUpgrade(db: Kysely<Database>): Promise<ClearedEmail[]> {
  const row = await db
    .selectFrom('meta')
    .select('value')
    .where('key', '=', 'emails_cleared_by_0026')
    .executeTakeFirst();
  if (row === undefined) return [];
  const parsed: unknown = JSON.parse(row.value);
  return Array.isArray(parsed) ? (parsed as ClearedEmail[]) : [];
}
