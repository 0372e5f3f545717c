import { JSONParser } from '@streamparser/json';
import type { z } from 'zod';
import { type BadRow, checkRowCount, unreadable } from './record.js';

/** Bytes handed to the JSON parser at a time: the items it completes are read before the next. */
const CHUNK_BYTES = 64 * 1024;

const isSpace = (byte: number | undefined): boolean =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * A JSON array of items, each checked against `schema` (those that fail are bad rows, "LABEL item N:
 * why"), read one item at a time from the file's bytes (@streamparser/json): the file is never one
 * string, nor all its items at once, so an item's HTML can be sanitised and dropped before the next is
 * read (issue 33, 11). JSON that is not valid, or not an array, refuses the file whole (`invalid_input`)
 * when it is found; more items than an import takes refuse it too (`limit_reached`).
 */
export function* readJsonItems<T>(
  bytes: Uint8Array,
  schema: z.ZodType<T>,
  label: string,
): Generator<{ where: string; item: T } | BadRow> {
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0; // a byte-order mark
  while (isSpace(bytes[at])) at++;
  if (at === bytes.length) throw unreadable(`${label} is not JSON: it is empty.`);
  if (bytes[at] !== 0x5b) throw unreadable(`${label} must be a JSON array of items.`);
  const parser = new JSONParser({ paths: ['$.*'], keepStack: false });
  const values: unknown[] = [];
  // In an object: TypeScript does not see the callbacks assign it.
  const state: { failure: Error | null } = { failure: null };
  parser.onValue = ({ value }) => {
    values.push(value);
  };
  parser.onError = (err) => {
    state.failure ??= err;
  };
  let n = 0;
  for (; at < bytes.length && state.failure === null; at += CHUNK_BYTES) {
    parser.write(bytes.subarray(at, at + CHUNK_BYTES));
    for (const raw of values.splice(0)) {
      checkRowCount(++n);
      const where = `${label} item ${n}`;
      const result = schema.safeParse(raw);
      yield result.success
        ? { where, item: result.data }
        : {
            where,
            why: result.error.issues.map((e) => `${e.path.join('.') || 'item'}: ${e.message}`).join('; '),
          };
    }
  }
  if (state.failure === null && !parser.isEnded) parser.end();
  if (state.failure !== null) throw unreadable(`${label} is not JSON: ${state.failure.message}`);
}
