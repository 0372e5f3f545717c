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
  sendPage,
  seeOther,
  viewerOf,
} from '../context.js';
import { newslettersPage } from './newslettersView.js';

/**
 * The Newsletters page (issue 34): the account's inbound address (copy, rotate), the notices of new
 * senders' first messages (dismiss), the senders (their share of a digest through the Feeds page's own
 * actions, pages/feeds.ts, which send the reader back here; Unsubscribe).
 */

const NOTICES: Record<string, string> = {
  rotated: 'Your address was replaced. Mail to the old one is refused from now on.',
  dismissed: 'Dismissed.',
  share: 'Saved. Your next digest shows the sender this way.',
  unmuted: 'Unmuted. Your next digest shows the sender again.',
};

const NO_SUCH_SENDER = 'You get no newsletter from such a sender.';

export function registerNewsletters(scope: FastifyInstance, deps: WebDeps): void {
  const domain = (): string | null => deps.config.inbound?.domain ?? null;

  async function show(
    reply: FastifyReply,
    session: WebSession,
    status: number,
    extra: { notice?: string | undefined; error?: string; unsubscribed?: Unsubscribed },
  ): Promise<FastifyReply> {
    const viewer = viewerOf(session);
    if (viewer === null) throw new WebError(404, 'This account no longer exists.');
    const now = deps.now();
    let view;
    try {
      view = await newslettersView(deps.store, session.accountId, { domain: domain(), now });
    } catch (err) {
      if (isTidingsError(err, 'not_found')) throw new WebError(404, 'This account no longer exists.');
      throw err;
    }
    return sendPage(reply, status, newslettersPage({ viewer, view, now, ...extra }), COPY_PAGE_HEADERS);
  }

  scope.get('/newsletters', async (request, reply) => {
    const session = requireSession(request);
    return show(reply, session, 200, { notice: NOTICES[queryParam(request, 'notice') ?? ''] });
  });

  scope.post('/newsletters/rotate', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const configured = domain();
    if (configured === null) throw new WebError(404, 'Newsletters by e-mail are not set up here.');
    if (field(formOf(request), 'confirm') !== 'yes') {
      return show(reply, session, 400, {
        error: 'Tick the box to confirm that the old address stops working, then replace it.',
      });
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
    if (id === null) throw new WebError(404, 'There is no such notice.');
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
    if (id === null) throw new WebError(404, NO_SUCH_SENDER);
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
      if (isTidingsError(err, 'not_found')) throw new WebError(404, NO_SUCH_SENDER);
      throw err;
    }
    return show(reply, session, 200, { unsubscribed });
  });
}
