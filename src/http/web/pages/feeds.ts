import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import {
  type Followed,
  changeFilters,
  followFeed,
  followOrChoose,
  followTimeLimitMs,
  listSubscriptions,
  renameFollowed,
  unsubscribe,
} from '../../../accounts/subscriptions.js';
import { isTidingsError } from '../../../errors.js';
import type { SubscriptionView } from '../../../store/subscriptions.js';
import { sentence, webRefusal } from '../errors.js';
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
import { type SafeHtml, html, safeHref } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { ago, fromNow, timeElement } from '../time.js';

const NOTICES: Record<string, string> = {
  added: 'Subscribed. What the feed published in the last day is in your queue; newer items follow.',
  already: 'You already follow that feed.',
  renamed: 'Feed renamed.',
  filtered: 'Filters saved. They apply to items the feed publishes from now on.',
  removed: 'Unsubscribed. What the feed already queued stays in your queue.',
  imported: 'Imported.',
};

const TITLE_MAX = 200;
const TOO_LONG = `That name is too long: at most ${TITLE_MAX} characters.`;
const NO_SUCH_FEED = 'You follow no such feed.';

interface AddForm {
  url: string;
  title: string;
  include: string;
  exclude: string;
  error?: string;
}

const EMPTY_ADD: AddForm = { url: '', title: '', include: '', exclude: '' };

/**
 * What the page says when the subscriptions service refuses: a filter that cannot run (the only input
 * these forms give that the service checks) in the filter's words; an unknown subscription as a 404 page;
 * the rest as the web's one mapping says. Null for anything else, which the caller rethrows.
 */
function refusal(err: unknown, deps: WebDeps): string | null {
  if (isTidingsError(err, 'not_found')) throw new WebError(404, NO_SUCH_FEED);
  if (isTidingsError(err, 'invalid_input')) return `Filters: ${err.message}.`;
  return webRefusal(err, deps.config)?.message ?? null;
}

/** Feeds: subscribe (with a choice when a page offers several feeds), status, filters, rename, remove. */
export function registerFeeds(scope: FastifyInstance, deps: WebDeps): void {
  async function view(
    session: WebSession,
    extra: { form?: AddForm; notice?: string | undefined; error?: string },
  ): Promise<SafeHtml> {
    const list = await listSubscriptions(deps.store, session.accountId);
    const viewer = viewerOf(session);
    if (viewer === null || list === null) throw new WebError(404, 'This account no longer exists.');
    return feedsPage({
      viewer,
      subs: list.subscriptions,
      zone: list.timezone,
      now: deps.now(),
      form: extra.form ?? EMPTY_ADD,
      notice: extra.notice,
      error: extra.error,
    });
  }

  /** The Feeds page again with a refusal (400), or the error rethrown when it is not one. */
  async function refused(
    reply: FastifyReply,
    session: WebSession,
    err: unknown,
    form?: AddForm,
  ): Promise<FastifyReply> {
    const error = refusal(err, deps);
    if (error === null) throw err;
    return sendPage(
      reply,
      400,
      await view(session, form === undefined ? { error } : { form: { ...form, error } }),
    );
  }

  scope.get('/feeds', async (request, reply) => {
    const session = requireSession(request);
    const code = queryParam(request, 'notice') ?? '';
    const imported = /^imported-(\d{1,6})-(\d{1,6})-(\d{1,6})$/.exec(code);
    const notice =
      imported === null
        ? NOTICES[code]
        : `Imported ${imported[1] ?? 0} feeds (${imported[2] ?? 0} you already followed, ${imported[3] ?? 0} refused). They are fetched within minutes.`;
    return sendPage(reply, 200, await view(session, { notice }));
  });

  scope.post('/feeds', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const body = formOf(request);
    const form: AddForm = {
      url: (field(body, 'url') ?? '').trim(),
      title: (field(body, 'title') ?? '').trim(),
      include: field(body, 'include') ?? '',
      exclude: field(body, 'exclude') ?? '',
    };
    const refuse = async (error: string) =>
      sendPage(reply, 400, await view(session, { form: { ...form, error } }));
    if (form.url === '') return refuse('Enter the address of a feed, or of a web page that links to one.');
    if (form.title.length > TITLE_MAX) return refuse(TOO_LONG);
    const feeds = deps.feeds();
    // Discovery and the first fetch of a slow site can outlast the connection's idle timeout (60 s),
    // which would cut the answer off: this one request may stay quiet as long as both may take.
    allowQuiet(request.raw.socket, followTimeLimitMs(feeds));
    const input = { url: form.url, title: form.title, include: form.include, exclude: form.exclude };
    let result: Followed;
    try {
      // A feed picked from the choice is followed as it is; else a page offering several gets a choice.
      result =
        field(body, 'chosen') === undefined
          ? await followOrChoose(feeds, session.accountId, input)
          : { kind: 'subscribed', ...(await followFeed(feeds, session.accountId, input)) };
    } catch (err) {
      return refused(reply, session, err, form);
    }
    if (result.kind === 'subscribed') {
      return seeOther(reply, `/feeds?notice=${result.created ? 'added' : 'already'}`);
    }
    const viewer = viewerOf(session);
    if (viewer === null) throw new Error('no viewer for a session');
    return sendPage(reply, 200, choicePage(viewer, form, result.choices));
  });

  scope.post('/feeds/:id/rename', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    const title = (field(formOf(request), 'title') ?? '').trim();
    if (id === null) throw new WebError(404, NO_SUCH_FEED);
    if (title.length > TITLE_MAX) return sendPage(reply, 400, await view(session, { error: TOO_LONG }));
    try {
      await renameFollowed(deps.store, session.accountId, id, title);
    } catch (err) {
      return refused(reply, session, err);
    }
    return seeOther(reply, '/feeds?notice=renamed');
  });

  scope.post('/feeds/:id/filters', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    if (id === null) throw new WebError(404, NO_SUCH_FEED);
    const body = formOf(request);
    try {
      await changeFilters(deps.store, session.accountId, id, {
        include: field(body, 'include') ?? '',
        exclude: field(body, 'exclude') ?? '',
      });
    } catch (err) {
      return refused(reply, session, err);
    }
    return seeOther(reply, '/feeds?notice=filtered');
  });

  scope.post('/feeds/:id/remove', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    if (id === null) throw new WebError(404, NO_SUCH_FEED);
    try {
      await unsubscribe(deps.store, session.accountId, id);
    } catch (err) {
      return refused(reply, session, err);
    }
    return seeOther(reply, '/feeds?notice=removed');
  });
}

function choicePage(viewer: Viewer, form: AddForm, choices: { url: string; title: string }[]): SafeHtml {
  return page({
    title: 'Choose a feed',
    viewer,
    current: 'feeds',
    body: html`<h1>Choose a feed</h1>
      <p>
        The page at <span class="mono">${form.url}</span> offers ${choices.length} feeds. Which one do you
        want to follow?
      </p>
      <form class="stack" method="post" action="/feeds">
        ${csrfField(viewer)}
        <input type="hidden" name="chosen" value="1" />
        <input type="hidden" name="title" value="${form.title}" />
        <input type="hidden" name="include" value="${form.include}" />
        <input type="hidden" name="exclude" value="${form.exclude}" />
        <fieldset>
          <legend>Feeds on that page</legend>
          ${choices.map(
            (c, i) =>
              html`<label class="check"
                ><input type="radio" name="url" value="${c.url}" ${i === 0 ? html` checked` : null} />
                <span>${c.title} <span class="muted mono">${c.url}</span></span></label
              >`,
          )}
        </fieldset>
        <div><button type="submit">Follow this feed</button> <a href="/feeds">Cancel</a></div>
      </form>`,
  });
}

interface FeedsView {
  viewer: Viewer;
  subs: SubscriptionView[];
  zone: string;
  now: Date;
  form: AddForm;
  notice: string | undefined;
  error: string | undefined;
}

function feedsPage(v: FeedsView): SafeHtml {
  const invalid = v.form.error !== undefined;
  return page({
    title: 'Feeds',
    viewer: v.viewer,
    current: 'feeds',
    body: html`<h1>Feeds</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${v.error === undefined ? null : html`<p class="error" role="alert">${v.error}</p>`}
      <p>
        New items of the feeds you follow join your queue as they are published, and reach you with your next
        digest.
      </p>
      <h2 id="add-heading">Follow a feed</h2>
      ${invalid ? html`<p class="error" role="alert" id="feed-error">${v.form.error}</p>` : null}
      <form class="stack" method="post" action="/feeds" aria-labelledby="add-heading">
        ${csrfField(v.viewer)}
        <div>
          <label for="feed-url">Address of a feed or of a web page</label>
          <input
            id="feed-url"
            name="url"
            type="url"
            required
            maxlength="2048"
            inputmode="url"
            placeholder="https://"
            value="${v.form.url}"
            ${invalid ? html` aria-invalid="true" aria-describedby="feed-error"` : null}
          />
          <p class="hint">A blog’s or a site’s address works: Tidings finds the feed it links to.</p>
        </div>
        <div>
          <label for="feed-title">Your name for it <span class="muted">(optional)</span></label>
          <input id="feed-title" name="title" type="text" maxlength="${TITLE_MAX}" value="${v.form.title}" />
        </div>
        <details${v.form.include !== '' || v.form.exclude !== '' ? html` open` : null}>
          <summary>Filters <span class="muted">(optional)</span></summary>
          ${filterFields('new', v.form.include, v.form.exclude)}
        </details>
        <div><button type="submit">Follow</button></div>
      </form>
      <h2>Following ${v.subs.length}</h2>
      ${
        v.subs.length === 0
          ? html`<p class="muted">You follow no feeds yet.</p>`
          : html`<ul class="items">
              ${v.subs.map((s) => feedRow(s, v))}
            </ul>`
      }
      <h2>Import and export</h2>
      <form class="stack" method="post" action="/feeds/import" enctype="multipart/form-data">
        ${csrfField(v.viewer)}
        <div>
          <label for="opml">An OPML file from another feed reader</label>
          <input
            id="opml"
            name="opml"
            type="file"
            required
            accept=".opml,.xml,text/x-opml,text/xml,application/xml"
          />
        </div>
        <div><button class="quiet" type="submit">Import</button></div>
      </form>
      <p><a href="/feeds/export.opml" download>Export your feeds as OPML</a></p>`,
  });
}

function filterFields(id: string, include: string, exclude: string): SafeHtml {
  return html`<div>
      <label for="include-${id}">Only items matching <span class="muted">(optional)</span></label>
      <input
        id="include-${id}"
        name="include"
        type="text"
        maxlength="1000"
        value="${include}"
        aria-describedby="filter-hint-${id}"
      />
    </div>
    <div>
      <label for="exclude-${id}">Never items matching <span class="muted">(optional)</span></label>
      <input
        id="exclude-${id}"
        name="exclude"
        type="text"
        maxlength="1000"
        value="${exclude}"
        aria-describedby="filter-hint-${id}"
      />
      <p class="hint" id="filter-hint-${id}">
        Words, "exact phrases" or /regular expressions/, separated by commas; matched in the title and
        summary, ignoring case.
      </p>
    </div>`;
}

function feedRow(s: SubscriptionView, v: FeedsView): SafeHtml {
  const status =
    s.status === 'gone'
      ? html`<span class="error-text"
          >The feed is gone: its server says it was removed. It is no longer fetched.</span
        >`
      : html`${
          s.lastFetchedAt === null
            ? 'Not fetched yet'
            : html`Fetched ${timeElement(s.lastFetchedAt, v.zone, ago(s.lastFetchedAt, v.now))}`
        };
        next fetch ${timeElement(s.nextFetchAt, v.zone, fromNow(s.nextFetchAt, v.now))}`;
  const filters = [
    s.includeFilter === null ? null : `only items matching ${s.includeFilter}`,
    s.excludeFilter === null ? null : `never items matching ${s.excludeFilter}`,
  ].filter((f) => f !== null);
  return html`<li>
    <div class="main">
      ${
        s.siteUrl === null
          ? html`<span class="title">${s.title}</span>`
          : html`<a class="title" href="${safeHref(s.siteUrl)}" rel="noopener noreferrer">${s.title}</a>`
      }
      <div class="meta">
        <span class="mono">${s.url}</span>${s.folder === null ? null : html` · in ${s.folder}`}
      </div>
      <div class="meta">
        ${status} · ${s.itemCount.toLocaleString('en')} item${s.itemCount === 1 ? '' : 's'} seen
      </div>
      ${s.lastError === null || s.status === 'gone' ? null : html`<div class="meta error-text">Last fetch failed: ${sentence(s.lastError)}</div>`}
      ${filters.length === 0 ? null : html`<div class="meta">Filters: ${filters.join('; ')}</div>`}
      <details>
        <summary>Change “${s.title}”</summary>
        <form class="stack" method="post" action="/feeds/${s.id}/rename">
          ${csrfField(v.viewer)}
          <div>
            <label for="title-${s.id}">Your name for it (empty: the feed’s own)</label>
            <input id="title-${s.id}" name="title" type="text" maxlength="${TITLE_MAX}" value="${s.title}" />
          </div>
          <div><button class="quiet" type="submit">Rename</button></div>
        </form>
        <form class="stack" method="post" action="/feeds/${s.id}/filters">
          ${csrfField(v.viewer)} ${filterFields(String(s.id), s.includeFilter ?? '', s.excludeFilter ?? '')}
          <div><button class="quiet" type="submit">Save filters</button></div>
        </form>
        <form method="post" action="/feeds/${s.id}/remove">
          ${csrfField(v.viewer)}
          <button class="danger" type="submit" aria-label="Unsubscribe from ${s.title}">Unsubscribe</button>
        </form>
      </details>
    </div>
  </li>`;
}

/** Lets a connection stay idle for `ms` while its request is handled (injected requests have no timeouts). */
function allowQuiet(socket: Socket, ms: number): void {
  const timeouts: Partial<Pick<Socket, 'setTimeout'>> = socket;
  timeouts.setTimeout?.(ms);
}
