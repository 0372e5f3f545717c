import { Readable, type Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { FetchFailure } from './failure.js';

/** The content codings the fetcher asks for, and how to undo each. */
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  // RFC 9110 §8.4.1.2: "deflate" is the zlib format, not raw deflate.
  deflate: createInflate,
  br: createBrotliDecompress,
};

export const ACCEPT_ENCODING = 'gzip, deflate, br';

const MIB = 1024 * 1024;

/** "10 MiB", "1000 bytes": sizes as the messages show them. */
function formatBytes(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}

const tooLarge = ({ maxBytes, noun }: Pick<BodyLimits, 'maxBytes' | 'noun'>): FetchFailure =>
  new FetchFailure(
    'too_large',
    `the ${noun} is larger than ${formatBytes(maxBytes)}, the most Tidings reads`,
  );

/**
 * The decoders for a Content-Encoding, in the order to apply them: codings are listed in the order they
 * were applied, so they are undone from the last one back.
 */
function decodersFor(contentEncoding: string | null, noun: string): Transform[] {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  return codings.reverse().map((coding) => {
    const decoder = DECODERS[coding];
    if (decoder === undefined) {
      throw new FetchFailure(
        'decompression',
        `the ${noun} is compressed as "${coding}", which Tidings cannot read`,
      );
    }
    return decoder();
  });
}

/** Ends a truncated read: what was collected up to the limit is the body. */
class Truncated extends Error {}

/** The body's chunks as received, until more than maxBytes have arrived: then too_large (or the end, truncating). */
async function* received(body: AsyncIterable<Buffer>, limits: BodyLimits): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > limits.maxBytes) {
      if (limits.truncate !== true) throw tooLarge(limits);
      yield chunk.subarray(0, chunk.length - (total - limits.maxBytes));
      return;
    }
    yield chunk;
  }
}

/** Keeps the decoded chunks, until more than maxBytes have been decoded: then too_large. */
function collector(chunks: Buffer[], limits: BodyLimits): Writable {
  let total = 0;
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      if (total > limits.maxBytes) {
        if (limits.truncate === true)
          chunks.push(chunk.subarray(0, chunk.length - (total - limits.maxBytes)));
        done(limits.truncate === true ? new Truncated() : tooLarge(limits));
        return;
      }
      chunks.push(chunk);
      done();
    },
  });
}

interface BodyLimits {
  maxBytes: number;
  /** Ends the read when the whole-request deadline passes. */
  signal: AbortSignal;
  /** What the messages call the body's owner: "the feed is larger than…". */
  noun: string;
  /** Keep the first maxBytes of a larger body instead of failing with too_large. */
  truncate?: boolean;
}

/**
 * Reads a response body while undoing its Content-Encoding, and stops as soon as more than maxBytes have
 * arrived, counted both as received and as decompressed: a gzip bomb stops at the limit, having inflated
 * no more than that. Throws FetchFailure for too_large and decompression; an error of the connection or
 * the deadline is thrown as it is, for the caller to describe. With `truncate`, a larger body is cut at
 * maxBytes instead (the page reader reads what arrived).
 */
export async function readBody(
  body: Readable,
  headers: { contentEncoding: string | null; contentLength: string | null },
  limits: BodyLimits,
): Promise<Buffer> {
  const { maxBytes, signal, noun } = limits;
  if (limits.truncate !== true && Number(headers.contentLength) > maxBytes) throw tooLarge(limits);
  const decoders = decodersFor(headers.contentEncoding, noun);
  const chunks: Buffer[] = [];
  try {
    // The body enters through a generator, so when a later stage fails the pipeline ends the body without
    // marking it errored: an errored body then always means the connection failed.
    const source = Readable.from(received(body, limits), { objectMode: false });
    await pipeline([source, ...decoders, collector(chunks, limits)], { signal });
  } catch (err) {
    if (err instanceof Truncated) return Buffer.concat(chunks);
    if (err instanceof FetchFailure || body.errored !== null || signal.aborted) throw err;
    const detail = err instanceof Error ? err.message : String(err);
    throw new FetchFailure(
      'decompression',
      `the ${noun}'s ${headers.contentEncoding} data is corrupt (${detail})`,
    );
  }
  return Buffer.concat(chunks);
}
