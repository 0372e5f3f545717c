import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Locale } from '../../i18n/locale.js';
import { IMPORT_LIMITS } from '../../imports/record.js';
import { MultipartForm, WebError } from './context.js';

/**
 * Why a file (an export, an OPML list) was not imported, in the reader's language. `why` is what the code
 * that read the file said of it (below the transports, in English), made to end as a sentence.
 */
export const cannotImport = (locale: Locale, why: string): string =>
  locale.t('web.upload.refused', { why: `${why}${/[.!?]$/.test(why) ? '' : '.'}` });

/** The reading-list upload's file field. */
export const EXPORT_FIELD = 'export';

/**
 * An export file uploaded with the reading-list page's form: its fields, and the file when it was within
 * the limits. `tooLarge`: the file went past 50 MB (IMPORT_LIMITS.fileBytes), so nothing of it was kept;
 * `late`: the body had not arrived within its time limit, so reading it stopped and nothing was kept;
 * `malformed`: the body was not a multipart form that could be read.
 */
export class ExportUploadForm extends MultipartForm {
  constructor(
    fields: URLSearchParams,
    files: ReadonlyMap<string, Buffer>,
    readonly tooLarge: boolean,
    readonly malformed: boolean,
    readonly late = false,
  ) {
    super(fields, files);
  }
}

/**
 * Reads the upload as it arrives: the file's bytes are kept only up to the limit (one byte past it says
 * it is too large); past it, the rest is read and dropped, so the reader is answered with a page and
 * memory never holds more than the limit. The body must arrive within `timeLimitMs` of the start of its
 * reading (IMPORT_THREAD_LIMITS.uploadMs, 30 s): then the file is dropped (its fields kept: the CSRF token
 * comes first), what still arrives is read and dropped, and the form says `late`, so that the route
 * answers with the page at once (issue 33 J), before the server's own request timeout (http/server.ts
 * REQUEST_TIMEOUT_MS, longer) would cut the connection with a bare error.
 */
export function readExportUpload(
  contentType: string,
  payload: Readable,
  timeLimitMs: number,
  locale: Locale,
): Promise<ExportUploadForm> {
  return new Promise((resolve, reject) => {
    const fields = new URLSearchParams();
    const files = new Map<string, Buffer>();
    let tooLarge = false;
    let malformed = false;
    let settled = false;
    let parser: busboy.Busboy | null = null;
    const finish = (late = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(
        late
          ? new ExportUploadForm(fields, new Map(), false, false, true)
          : new ExportUploadForm(fields, files, tooLarge, malformed),
      );
    };
    const timer = setTimeout(() => {
      // The rest is read and dropped, as a file past the size limit is: a connection closed with bytes
      // unread is reset, and the reader would lose the answer.
      if (parser !== null) payload.unpipe(parser);
      payload.resume();
      files.clear();
      finish(true);
    }, timeLimitMs);
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { parts: 8, fields: 7, files: 1, fieldSize: 4096, fileSize: IMPORT_LIMITS.fileBytes + 1 },
      });
    } catch {
      // Not multipart, or no boundary: nothing can be read of it. The body is still drained.
      malformed = true;
      payload.resume();
      payload.once('end', () => {
        finish();
      });
      payload.once('error', () => {
        finish();
      });
      return;
    }
    const form = parser;
    form.on('field', (name, value) => {
      fields.append(name, value);
    });
    form.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        if (tooLarge || settled) return;
        size += chunk.length;
        chunks.push(chunk);
      });
      stream.on('limit', () => {
        tooLarge = true;
        chunks.length = 0; // nothing of a file past the limit is kept
      });
      stream.on('error', () => undefined);
      stream.on('end', () => {
        if (name === EXPORT_FIELD && !tooLarge && !settled && !files.has(name))
          files.set(name, Buffer.concat(chunks, size));
      });
    });
    form.on('error', () => {
      malformed = true;
      payload.unpipe(form);
      payload.resume(); // the rest is drained, so that the page can be answered
      if (payload.readableEnded) finish();
      else
        payload.once('end', () => {
          finish();
        });
    });
    form.on('close', () => {
      finish();
    });
    payload.on('error', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new WebError(400, locale.t('web.upload.cutOff')));
    });
    payload.pipe(form);
  });
}
