import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import {
  type Unsubscribed,
  dismissNewSender,
  newslettersView,
  unsubscribeSender,
} from '../../../accounts/newsletterSenders.js';
import { newsletterAddress } from '../../../accounts/newsletters.js';
import { isTidingsError } from '../../../errors.js';
import { ENGLISH } from '../../../i18n/locale.js';
import { COPY_PAGE_HEADERS } from '../copyScript.js';
import {
  type WebDeps,
  WebError,
  checkCsrf,
  field,
  formOf,
  idParam,
  queryParam,
  requireSession,
  localeFor,
  sendPage,
  seeOther,
  viewerOf,
} from '../context.js';
import type { LabelKey } from '../localeTime.js';
import { newslettersPage } from './newslettersView.js';

/**
 * The Newsletters page (issue 34): the account's inbound address (copy, rotate), the notices of new
 * senders' first messages (dismiss), the senders (their share of a digest through the Feeds page's own
 * actions, pages/feeds.ts, which send the reader back here; Unsubscribe).
 */

const NOTICES: Record<string, LabelKey> = {
  rotated: 'web.newsletters.notice.rotated',
  dismissed: 'web.newsletters.notice.dismissed',
  share: 'web.newsletters.notice.share',
  unmuted: 'web.newsletters.notice.unmuted',
};

export function registerNewsletters(scope: FastifyInstance, deps: WebDeps): void {
  const domain = (): string | null => deps.config.inbound?.domain ?? null;

  async function show(
    reply: FastifyReply,
    session: WebSession,
    status: number,
    extra: { notice?: LabelKey | undefined; error?: LabelKey; unsubscribed?: Unsubscribed },
  ): Promise<FastifyReply> {
    const viewer = viewerOf(session);
    if (viewer === null) throw new WebError(404, ENGLISH.t('web.newsletters.accountGone'));
    const { locale } = viewer;
    const said = {
      notice: extra.notice === undefined ? undefined : locale.t(extra.notice),
      error: extra.error === undefined ? undefined : locale.t(extra.error),
      unsubscribed: extra.unsubscribed,
    };
    const now = deps.now();
    let view;
    try {
      view = await newslettersView(deps.store, session.accountId, { domain: domain(), now });
    } catch (err) {
      if (isTidingsError(err, 'not_found')) throw new WebError(404, locale.t('web.newsletters.accountGone'));
      throw err;
    }
    return sendPage(reply, status, newslettersPage({ viewer, view, now, ...said }), COPY_PAGE_HEADERS);
  }

  scope.get('/newsletters', async (request, reply) => {
    const session = requireSession(request);
    return show(reply, session, 200, { notice: NOTICES[queryParam(request, 'notice') ?? ''] });
  });

  scope.post('/newsletters/rotate', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const configured = domain();
    if (configured === null) {
      throw new WebError(404, localeFor(request).t('web.newsletters.notSetUpShort'));
    }
    if (field(formOf(request), 'confirm') !== 'yes') {
      return show(reply, session, 400, { error: 'web.newsletters.confirmRotate' });
    }
    await newsletterAddress(deps.store, session.accountId, {
      domain: configured,
      rotate: true,
      now: deps.now(),
    });
    return seeOther(reply, '/newsletters?notice=rotated');
  });

  scope.post('/newsletters/notices/:id/dismiss', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    if (id === null) throw new WebError(404, localeFor(request).t('web.newsletters.noSuchNotice'));
    try {
      await dismissNewSender(deps.store, session.accountId, id, deps.now());
    } catch (err) {
      if (isTidingsError(err, 'not_found')) return seeOther(reply, '/newsletters');
      throw err;
    }
    return seeOther(reply, '/newsletters?notice=dismissed');
  });

  // Done here, then the page with what was done (a link to open, a step that failed): not a redirect.
  scope.post('/newsletters/:id/unsubscribe', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    if (id === null) throw new WebError(404, localeFor(request).t('web.newsletters.noSuchSender'));
    const { config } = deps;
    const digest = deps.digest();
    let unsubscribed: Unsubscribed;
    try {
      unsubscribed = await unsubscribeSender(
        {
          store: deps.store,
          now: deps.now,
          policy: { allowPrivate: config.allowPrivateNetworks ?? false },
          mailer: digest.mailer,
          mailFrom: digest.mailFrom,
        },
        session.accountId,
        id,
      );
    } catch (err) {
      if (isTidingsError(err, 'not_found'))
        throw new WebError(404, localeFor(request).t('web.newsletters.noSuchSender'));
      throw err;
    }
    return show(reply, session, 200, { unsubscribed });
  });
}
