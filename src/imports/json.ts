import type { z } from 'zod';
import { type BadRow, checkRowCount, unreadable } from './record.js';

/** A JSON array of items, each checked against `schema`: those that fail are bad rows ("item N: why"). */
export function readJsonItems<T>(
  text: string,
  schema: z.ZodType<T>,
  label: string,
): { items: { where: string; item: T }[]; bad: BadRow[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\ufeff/, ''));
  } catch (err) {
    throw unreadable(`${label} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!Array.isArray(parsed)) throw unreadable(`${label} must be a JSON array of items.`);
  checkRowCount(parsed.length);
  const items: { where: string; item: T }[] = [];
  const bad: BadRow[] = [];
  (parsed as unknown[]).forEach((raw, i) => {
    const where = `${label} item ${i + 1}`;
    const result = schema.safeParse(raw);
    if (result.success) items.push({ where, item: result.data });
    else
      bad.push({
        where,
        why: result.error.issues.map((e) => `${e.path.join('.') || 'item'}: ${e.message}`).join('; '),
      });
  });
  return { items, bad };
}
