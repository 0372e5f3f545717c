import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountOf } from '../../../accounts/profile.js';
import {
  type ReadingListFilter,
  type ReadingState,
  readingListView,
  setReadingItemState,
} from '../../../accounts/readingList.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import { TidingsError } from '../../../errors.js';
import type { ImportCounts } from '../../../imports/counts.js';
import { IMPORT_FORMATS, IMPORT_LIMITS, type ImportFormat } from '../../../imports/record.js';
import { foldWhitespace } from '../../../lib/text.js';
import {
  SignInRequired,
  type WebDeps,
  WebError,
  allowQuiet,
  checkCsrf,
  field,
  formOf,
  idParam,
  localeFor,
  queryParam,
  requireSession,
  seeOther,
  sendPage,
  sessionOf,
  startParam,
  viewerOf,
} from '../context.js';
import { fileRefusalWords, webRefusal } from '../errors.js';
import { EXPORT_FIELD, ExportUploadForm, cannotImport, readExportUpload } from '../exportUpload.js';
import type { LabelKey } from '../localeTime.js';
import { type ImportOutcome, READING_PAGE_SIZE, listHref, readingListPage } from './readingListView.js';

/** The upload's body: the file and a few fields, with room for multipart's own bytes. */
const UPLOAD_BODY_LIMIT = IMPORT_LIMITS.fileBytes + 64 * 1024;

/**
 * How long an import may keep its connection quiet while it is read and written: a 50 MB file of 100,000
 * links takes tens of seconds on a slow disk, past the server's idle timeout (60 s) when the database is
 * busy.
 */
const IMPORT_QUIET_MS = 10 * 60_000;

/** Why a waiting upload was dropped: its client closed the connection. */
class ClientGone extends Error {
  constructor() {
    super('the client went away while its upload waited its turn');
  }
}

const NOTICES: Record<string, LabelKey> = {
  archived: 'web.readingList.notice.archived',
  unarchived: 'web.readingList.notice.unarchived',
};

/** The filter of an address (or a form's hidden fields): unread unless another state is named. */
function filterOf(state: string | undefined, tag: string | undefined): ReadingListFilter {
  const folded = foldWhitespace(tag ?? '').toLowerCase();
  return {
    state: state === 'archived' || state === 'all' ? state : 'unread',
    tag: folded === '' || folded.length > IMPORT_LIMITS.tagChars ? null : folded,
  };
}

/** The reading list: the account's imported links, filtered by state and tag; archive; import a file. */
export function registerReadingList(scope: FastifyInstance, deps: WebDeps): void {
  async function render(
    session: WebSession,
    filter: ReadingListFilter,
    start: number,
    extra: { notice?: string | undefined; outcome?: ImportOutcome } = {},
  ) {
    const viewer = viewerOf(session);
    if (viewer === null) throw new Error('no viewer for a session');
    const account = await accountOf(deps.store, session.accountId);
    if (account === null) throw new WebError(404, viewer.locale.t('web.readingList.accountGone'));
    let view = await readingListView(deps.store, session.accountId, filter, {
      offset: start,
      limit: READING_PAGE_SIZE,
    });
    if (view.items.length === 0 && start > 0 && view.total > 0) {
      // Past the end (the last item of the last page archived, or an old link): the last page instead.
      start = Math.floor((view.total - 1) / READING_PAGE_SIZE) * READING_PAGE_SIZE;
      view = await readingListView(deps.store, session.accountId, filter, {
        offset: start,
        limit: READING_PAGE_SIZE,
      });
    }
    return readingListPage({
      viewer,
      view,
      filter,
      start,
      timezone: account.timezone,
      now: deps.now(),
      notice: extra.notice,
      outcome: extra.outcome ?? null,
    });
  }

  scope.get('/reading-list', async (request, reply) => {
    const session = requireSession(request);
    const filter = filterOf(queryParam(request, 'state'), queryParam(request, 'tag'));
    const start = startParam(queryParam(request, 'start'));
    const key = NOTICES[queryParam(request, 'notice') ?? ''];
    const notice = key === undefined ? undefined : localeFor(request).t(key);
    return sendPage(reply, 200, await render(session, filter, start, { notice }));
  });

  for (const [action, state] of [
    ['archive', 'archived'],
    ['unarchive', 'unread'],
  ] as const satisfies readonly (readonly [string, ReadingState])[]) {
    scope.post(`/reading-list/:id/${action}`, async (request, reply) => {
      const session = requireSession(request);
      checkCsrf(request, session);
      const id = idParam(request);
      try {
        if (id === null) throw new TidingsError('not_found', 'no such item');
        await setReadingItemState(deps.store, session.accountId, id, state);
      } catch (err) {
        if (!(err instanceof TidingsError) || err.kind !== 'not_found') throw err;
        throw new WebError(404, localeFor(request).t('web.readingList.notInList'));
      }
      // Back to the list as it was: its filters and its page.
      const form = formOf(request);
      const filter = filterOf(field(form, 'state'), field(form, 'tag'));
      const href = listHref(filter, startParam(field(form, 'start')));
      return seeOther(reply, `${href}${href.includes('?') ? '&' : '?'}notice=${action}d`);
    });
  }

  // The address an import answered from, opened again: the list.
  scope.get('/reading-list/import', (request, reply) => {
    requireSession(request);
    return seeOther(reply, '/reading-list');
  });

  // The upload, in a scope of its own: its body is read as it streams (the file kept up to its limit),
  // not buffered whole by the OPML upload's parser.
  void scope.register((upload, _opts, done) => {
    upload.removeContentTypeParser('multipart/form-data');
    upload.addContentTypeParser(
      'multipart/form-data',
      (request: FastifyRequest, payload, parsed: (err: Error | null, form?: ExportUploadForm) => void) => {
        readExportUpload(
          String(request.headers['content-type']),
          payload,
          deps.imports.limits.uploadMs,
          localeFor(request),
        ).then(
          (form) => {
            parsed(null, form);
          },
          (err: unknown) => {
            parsed(err instanceof Error ? err : new Error(String(err)));
          },
        );
      },
    );
    upload.post(
      '/reading-list/import',
      {
        bodyLimit: UPLOAD_BODY_LIMIT,
        // Signed-in readers only may send a body this large: checked before it is read.
        onRequest: (request, _reply, next) => {
          next(sessionOf(request) === null ? new SignInRequired('sign in first') : undefined);
        },
      },
      async (request, reply) => {
        const session = requireSession(request);
        checkCsrf(request, session);
        const locale = localeFor(request);
        const form = request.body instanceof ExportUploadForm ? request.body : null;
        const unread = filterOf(undefined, undefined);
        const refuse = async (status: number, error: string) =>
          sendPage(reply, status, await render(session, unread, 0, { outcome: { error } }));
        if (form?.late === true) {
          return refuse(
            408,
            locale.t('web.readingList.refused.late', {
              seconds: deps.imports.limits.uploadMs / 1000,
              command: 'tidings import',
            }),
          );
        }
        if (form === null || form.malformed)
          return refuse(400, locale.t('web.readingList.refused.malformed'));
        if (form.tooLarge) {
          return refuse(
            413,
            locale.t('web.readingList.refused.tooLarge', { mb: IMPORT_LIMITS.fileBytes / 1024 / 1024 }),
          );
        }
        const file = form.files.get(EXPORT_FIELD);
        if (file === undefined || file.length === 0)
          return refuse(400, locale.t('web.readingList.refused.noFile'));
        const format = field(form.fields, 'format') ?? 'auto';
        if (format !== 'auto' && !(IMPORT_FORMATS as readonly string[]).includes(format)) {
          return refuse(400, locale.t('web.readingList.refused.format'));
        }
        allowQuiet(request.raw.socket, IMPORT_QUIET_MS);
        // A client that goes while its upload waits its turn gives its place up (issue 33 C).
        const gone = new AbortController();
        const left = (): void => {
          if (!reply.raw.writableFinished) gone.abort(new ClientGone());
        };
        reply.raw.once('close', left);
        let counts: ImportCounts;
        try {
          counts = await deps.imports.importFile(
            deps.store,
            session.accountId,
            file,
            format as ImportFormat | 'auto',
            gone.signal,
          );
        } catch (err) {
          if (err instanceof ClientGone) {
            request.log.info('an upload left the import queue: its client went away before its turn');
            reply.hijack(); // nobody to answer
            return reply;
          }
          // Not an export (400), past a limit (409, the limit named): nothing of it was imported.
          const refusal = webRefusal(err, deps.config, locale);
          if (refusal === null || !(err instanceof TidingsError)) throw err;
          // Worded from the error's facts; without them, in English, the file reader's reason, its
          // advice to the CLI made the form's.
          const words = fileRefusalWords(err, locale, () => {
            const option = locale.t('web.readingList.import.auto');
            const why = err.message.replace(
              'try --format auto',
              locale.t('web.readingList.refused.chooseAuto', { option }),
            );
            return cannotImport(locale, why);
          });
          return refuse(refusal.status, words);
        }
        return sendPage(reply, 200, await render(session, unread, 0, { outcome: { counts } }));
      },
    );
    done();
  });
}
