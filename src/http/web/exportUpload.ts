import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { IMPORT_LIMITS } from '../../imports/record.js';
import { MultipartForm, WebError } from './context.js';

/** The reading-list upload's file field. */
export const EXPORT_FIELD = 'export';

/**
 * An export file uploaded with the reading-list page's form: its fields, and the file when it was within
 * the limit. `tooLarge`: the file went past 50 MB (IMPORT_LIMITS.fileBytes), so nothing of it was kept;
 * `malformed`: the body was not a multipart form that could be read.
 */
export class ExportUploadForm extends MultipartForm {
  constructor(
    fields: URLSearchParams,
    files: ReadonlyMap<string, Buffer>,
    readonly tooLarge: boolean,
    readonly malformed: boolean,
  ) {
    super(fields, files);
  }
}

/**
 * Reads the upload as it arrives: the file's bytes are kept only up to the limit (one byte past it says
 * it is too large); past it, the rest is read and dropped, so the reader is answered with a page and
 * memory never holds more than the limit. The time an upload may take is the server's request timeout
 * (30 s), whatever is sent.
 */
export function readExportUpload(contentType: string, payload: Readable): Promise<ExportUploadForm> {
  return new Promise((resolve, reject) => {
    const fields = new URLSearchParams();
    const files = new Map<string, Buffer>();
    let tooLarge = false;
    let malformed = false;
    let parser: busboy.Busboy;
    const finish = (): void => {
      resolve(new ExportUploadForm(fields, files, tooLarge, malformed));
    };
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { parts: 8, fields: 7, files: 1, fieldSize: 4096, fileSize: IMPORT_LIMITS.fileBytes + 1 },
      });
    } catch {
      // Not multipart, or no boundary: nothing can be read of it. The body is still drained.
      malformed = true;
      payload.resume();
      payload.once('end', finish);
      payload.once('error', finish);
      return;
    }
    parser.on('field', (name, value) => {
      fields.append(name, value);
    });
    parser.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        if (tooLarge) return;
        size += chunk.length;
        chunks.push(chunk);
      });
      stream.on('limit', () => {
        tooLarge = true;
        chunks.length = 0; // nothing of a file past the limit is kept
      });
      stream.on('error', () => undefined);
      stream.on('end', () => {
        if (name === EXPORT_FIELD && !tooLarge && !files.has(name))
          files.set(name, Buffer.concat(chunks, size));
      });
    });
    parser.on('error', () => {
      malformed = true;
      payload.unpipe(parser);
      payload.resume(); // the rest is drained, so that the page can be answered
      if (payload.readableEnded) finish();
      else payload.once('end', finish);
    });
    parser.on('close', finish);
    payload.on('error', () => {
      reject(new WebError(400, 'The upload was cut off before it was complete. Try again.'));
    });
    payload.pipe(parser);
  });
}
