import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority } from '../../lib/threads.js';
import type { Book } from './book.js';
import { epubBytes } from './package.js';

/**
 * A thread of epub/builds.ts: turns each book it is sent (plain data, loaded from the database by the
 * main thread) into the EPUB's bytes, one at a time, and answers with the book's number; the bytes' buffer
 * is transferred, not copied. A build that throws answers with its message; one that fills the thread's
 * heap ends the thread, and builds.ts fails that build. builds.ts ends the thread (terminate) when idle.
 *
 * The thread lowers its own scheduling priority (lib/threads.ts): requests come first.
 */

export type BuildReply = { id: number; bytes: Uint8Array } | { id: number; error: string };

const port = parentPort;
if (port === null) throw new Error('epubWorker.ts runs as a worker thread');
lowerThreadPriority();
port.on('message', (message: { id: number; book: Book }) => {
  let reply: BuildReply;
  try {
    reply = { id: message.id, bytes: epubBytes(message.book) };
  } catch (err) {
    reply = { id: message.id, error: err instanceof Error ? err.message : String(err) };
  }
  const buffer = 'bytes' in reply ? reply.bytes.buffer : null;
  port.postMessage(reply, buffer instanceof ArrayBuffer ? [buffer] : []);
});
port.postMessage({ ready: true });
