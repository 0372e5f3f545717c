import { Unzip, UnzipInflate } from 'fflate';
import { TidingsError } from '../errors.js';
import { IMPORT_LIMITS } from './record.js';

/** Bytes handed to the inflater at a time: one step inflates at most ~1,000 times this (DEFLATE's ratio). */
const STEP = 16 * 1024;

export const isZip = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

const tooBig = (cap: number): TidingsError =>
  new TidingsError(
    'limit_reached',
    `The zip holds more than ${cap / 1024 / 1024} MB once unpacked; that is more than one import takes.`,
    { facts: { reason: 'zip_too_big', megabytes: cap / 1024 / 1024 } },
  );

/**
 * The entries of a zip whose names `wanted` accepts, inflated. A zip bomb is refused before it is inflated
 * when its entries declare their sizes (more than the limit in all), and while inflating when they do not
 * or lie: the bytes are fed in small steps and counted, and past the limit the whole file is refused
 * (`limit_reached`). A damaged zip is `invalid_input`.
 */
export function readZip(
  bytes: Uint8Array,
  wanted: (name: string) => boolean,
  cap: number = IMPORT_LIMITS.unzippedBytes,
): Map<string, Uint8Array> {
  return walkZip(bytes, wanted, cap).files;
}

/** The names of a zip's entries (nothing inflated). */
export const zipNames = (bytes: Uint8Array): string[] =>
  walkZip(bytes, () => false, IMPORT_LIMITS.unzippedBytes).names;

function walkZip(
  bytes: Uint8Array,
  wanted: (name: string) => boolean,
  cap: number,
): { files: Map<string, Uint8Array>; names: string[] } {
  const files = new Map<string, Uint8Array[]>();
  const names: string[] = [];
  let entries = 0;
  let total = 0;
  // In an object: TypeScript does not see the callbacks assign it.
  const state: { failure: TidingsError | null } = { failure: null };
  const unzip = new Unzip((file) => {
    if (state.failure !== null) return;
    if (++entries > IMPORT_LIMITS.zipEntries) {
      state.failure = new TidingsError(
        'limit_reached',
        `The zip holds more than ${IMPORT_LIMITS.zipEntries} files.`,
        { facts: { reason: 'zip_too_many_files', limit: IMPORT_LIMITS.zipEntries } },
      );
      return;
    }
    names.push(file.name);
    if (file.name.endsWith('/') || !wanted(file.name)) return;
    if (file.originalSize !== undefined && total + file.originalSize > cap) {
      state.failure = tooBig(cap);
      return;
    }
    const chunks: Uint8Array[] = [];
    files.set(file.name, chunks);
    file.ondata = (err, data) => {
      if (state.failure !== null) return;
      if (err !== null) {
        state.failure = new TidingsError(
          'invalid_input',
          `The zip's entry ${file.name} cannot be read: ${err.message}`,
        );
        return;
      }
      total += data.length;
      if (total > cap) {
        state.failure = tooBig(cap);
        file.terminate();
        return;
      }
      chunks.push(data);
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    for (let at = 0; at < bytes.length && state.failure === null; at += STEP) {
      unzip.push(bytes.subarray(at, at + STEP), at + STEP >= bytes.length);
    }
  } catch (err) {
    state.failure ??= new TidingsError(
      'invalid_input',
      `The zip cannot be read: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (state.failure !== null) throw state.failure;
  if (names.length === 0)
    throw new TidingsError('invalid_input', 'The zip holds no file: it is empty or damaged.');
  return { files: new Map([...files].map(([name, chunks]) => [name, Buffer.concat(chunks)])), names };
}
