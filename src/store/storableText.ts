/**
 * What text the database is given: never U+0000. PostgreSQL's text types cannot hold the character (a
 * statement with one fails, `invalid byte sequence for encoding "UTF8": 0x00`) and SQLite's string
 * functions stop at it, yet any text from outside may carry one: a JSON export's `"\u0000"`, a fetched
 * page, a feed. Every statement's parameters pass through `storableParameters` on both engines (the SQLite
 * statements of sqlite.ts, the PostgreSQL connections of writeTracking.ts), so every writer, whatever the
 * table, stores the same text on either engine, and a lookup with the same input finds it.
 */

const NUL = '\u0000';

/** `text` without U+0000. */
export function withoutNul(text: string): string {
  return text.includes(NUL) ? text.replaceAll(NUL, '') : text;
}

/**
 * The parameters of a statement with every string freed of U+0000, arrays (PostgreSQL's `any($1)`,
 * `unnest`) included; other values (numbers, buffers, null) as they are. The same array when nothing
 * changes, which is nearly always: a scan, no copy.
 */
export function storableParameters(parameters: readonly unknown[]): readonly unknown[] {
  let out: unknown[] | null = null;
  for (let i = 0; i < parameters.length; i++) {
    const value = parameters[i];
    const storable = storableValue(value);
    if (storable !== value) {
      out ??= parameters.slice();
      out[i] = storable;
    }
  }
  return out ?? parameters;
}

function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return withoutNul(value);
  if (Array.isArray(value)) return storableParameters(value);
  return value;
}
