import busboy from 'busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { exportSubscriptions, importSubscriptions, readSubscriptionList } from '../../../accounts/opml.js';
import { followTimeLimitMs } from '../../../accounts/subscriptions.js';
import { TidingsError } from '../../../errors.js';
import type { OpmlImport } from '../../../feeds/subscribe/import.js';
import { MAX_OPML_BYTES } from '../../../feeds/subscribe/opml.js';
import type { Locale } from '../../../i18n/locale.js';
import { fileRefusalWords, webRefusal } from '../errors.js';
import { cannotImport } from '../exportUpload.js';
import {
  MultipartForm,
  SignInRequired,
  type WebDeps,
  WebError,
  allowQuiet,
  checkCsrf,
  localeFor,
  requireSession,
  seeOther,
  sendPage,
  sessionOf,
} from '../context.js';
import { feedsPageOf } from './feeds.js';

/** The OPML upload's body: the file and a few fields, with room for multipart's own bytes. */
export const OPML_BODY_LIMIT = MAX_OPML_BYTES + 64 * 1024;

/** Reads a multipart body into its fields and files (at most one of each name; at most 16 parts). */
export function readMultipartForm(contentType: string, body: Buffer, locale: Locale): Promise<MultipartForm> {
  return new Promise((resolve, reject) => {
    const fields = new URLSearchParams();
    const files = new Map<string, Buffer>();
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { parts: 16, fields: 15, files: 1, fieldSize: 64 * 1024, fileSize: MAX_OPML_BYTES },
      });
    } catch {
      resolve(new MultipartForm(fields, files));
      return;
    }
    parser.on('field', (name, value) => {
      fields.append(name, value);
    });
    parser.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', () => undefined);
      stream.on('end', () => {
        if (!files.has(name)) files.set(name, Buffer.concat(chunks));
      });
    });
    parser.on('error', () => {
      reject(new WebError(400, locale.t('web.upload.invalidForm')));
    });
    parser.on('close', () => {
      resolve(new MultipartForm(fields, files));
    });
    parser.end(body);
  });
}

/** OPML import (an uploaded file) and export (a download). */
export function registerOpml(scope: FastifyInstance, deps: WebDeps): void {
  scope.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer' },
    (request: FastifyRequest, body: Buffer, done: (err: Error | null, form?: MultipartForm) => void) => {
      readMultipartForm(String(request.headers['content-type']), body, localeFor(request)).then(
        (form) => {
          done(null, form);
        },
        (err: unknown) => {
          done(err instanceof Error ? err : new Error(String(err)));
        },
      );
    },
  );

  // The address an import answered from, opened again: the Feeds page.
  scope.get('/feeds/import', (request, reply) => {
    requireSession(request);
    return seeOther(reply, '/feeds');
  });

  scope.get('/feeds/export.opml', async (request, reply) => {
    const session = requireSession(request);
    const document = await exportSubscriptions(deps.store, session.accountId);
    if (document === null) throw new WebError(404, localeFor(request).t('web.feeds.accountGone'));
    return reply
      .header('content-type', 'text/x-opml; charset=utf-8')
      .header('content-disposition', 'attachment; filename="tidings-feeds.opml"')
      .header('cache-control', 'no-store')
      .send(document);
  });

  scope.post(
    '/feeds/import',
    {
      bodyLimit: OPML_BODY_LIMIT,
      // Signed-in readers only may send a body this large: checked before it is read.
      onRequest: (request, _reply, done) => {
        done(sessionOf(request) === null ? new SignInRequired('sign in first') : undefined);
      },
    },
    async (request, reply) => {
      const session = requireSession(request);
      checkCsrf(request, session);
      const locale = localeFor(request);
      // A refusal comes back to the Feeds page, the reason beside the file field.
      const refuse = async (status: number, importError: string) =>
        sendPage(reply, status, await feedsPageOf(deps, session, { importError }));
      const file = request.body instanceof MultipartForm ? request.body.files.get('opml') : undefined;
      if (file === undefined || file.length === 0) return refuse(400, locale.t('web.opml.noFile'));
      if (file.length >= MAX_OPML_BYTES) {
        return refuse(413, locale.t('web.opml.tooLarge', { mib: MAX_OPML_BYTES / 1024 / 1024 }));
      }
      const feeds = deps.feeds();
      // The largest import taken (TIDINGS_MAX_OPML_OUTLINES, 2,000 feeds) is done within a second or two;
      // with the limits raised, a slow database could make it outlast the connection's idle timeout (60 s),
      // which would cut the answer off: this request may stay quiet as long as following a feed may.
      allowQuiet(request.raw.socket, followTimeLimitMs(feeds));
      let imported: OpmlImport;
      try {
        // As `tidings opml import`: no discovery, no fetch now; the poller fetches the new feeds.
        const list = await readSubscriptionList(feeds, file);
        imported = await importSubscriptions(feeds, session.accountId, list);
      } catch (err) {
        // Not OPML (400), more feeds than one import or one account may have (409, the limit named).
        const refusal = webRefusal(err, deps.config, locale);
        if (refusal === null || !(err instanceof TidingsError)) throw err;
        const words = fileRefusalWords(err, locale, () => cannotImport(locale, err.message));
        return refuse(refusal.status, words);
      }
      const { added, known, refused, withoutUrl } = imported;
      // Feeds refused are listed, with why, on the page answered here; an import without any redirects.
      if (refused.length > 0) return sendPage(reply, 200, await feedsPageOf(deps, session, { imported }));
      // The outlines without a feed address, when there were any, as a fourth number.
      const skipped = withoutUrl === 0 ? '' : `-${withoutUrl}`;
      return seeOther(reply, `/feeds?notice=imported-${added}-${known}-0${skipped}`);
    },
  );
}
