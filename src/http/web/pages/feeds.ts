import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { DISCOVERY_DEADLINE_MS, discoverFeeds } from '../../../feeds/subscribe/discover.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../../fetch/fetch.js';
import { SubscribeError, checkFilters, subscribe } from '../../../feeds/subscribe/subscribe.js';
import { accountById } from '../../../store/accounts.js';
import { deleteOrphanFeeds } from '../../../store/feeds.js';
import {
  type SubscriptionView,
  deleteSubscription,
  renameSubscription,
  subscriptionsByAccount,
  updateSubscriptionFilters,
} from '../../../store/subscriptions.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import { sentence } from '../errors.js';
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

interface AddForm {
  url: string;
  title: string;
  include: string;
  exclude: string;
  error?: string;
}

const EMPTY_ADD: AddForm = { url: '', title: '', include: '', exclude: '' };

/** Feeds: subscribe (with a choice when a page offers several feeds), status, filters, rename, remove. */
export function registerFeeds(scope: FastifyInstance, deps: WebDeps): void {
  async function view(
    session: WebSession,
    extra: { form?: AddForm; notice?: string | undefined; error?: string },
  ): Promise<SafeHtml> {
    const subs = await subscriptionsByAccount(deps.store.db, session.accountId);
    const account = await accountById(deps.store.db, session.accountId);
    const viewer = viewerOf(session);
    if (viewer === null || account === null) throw new WebError(404, 'This account no longer exists.');
    return feedsPage({
      viewer,
      subs,
      zone: account.timezone,
      now: deps.now(),
      form: extra.form ?? EMPTY_ADD,
      notice: extra.notice,
      error: extra.error,
    });
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
    if (form.title.length > TITLE_MAX)
      return refuse(`That name is too long: at most ${TITLE_MAX} characters.`);
    try {
      checkFilters(form.include, form.exclude);
    } catch (err) {
      if (err instanceof SubscribeError) return refuse(`Filters: ${err.message}.`);
      throw err;
    }
    const refreshDeps = deps.feeds();
    // Discovery and the first fetch of a slow site can outlast the connection's idle timeout (60 s),
    // which would cut the answer off: this one request may stay quiet as long as both may take.
    allowQuiet(
      request.raw.socket,
      DISCOVERY_DEADLINE_MS + (refreshDeps.fetch.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) + 15_000,
    );
    let discovered = false;
    if (field(body, 'chosen') === undefined) {
      // Discovery first: a page offering several feeds gets a choice before anything is subscribed.
      const { policy, maxBytes, connectTimeoutMs, requestTimeoutMs, userAgent } = refreshDeps.fetch;
      const found = await discoverFeeds(form.url, {
        policy,
        maxBytes,
        fetchOptions: { connectTimeoutMs, requestTimeoutMs, userAgent },
      });
      if (found.kind !== 'found') return refuse(sentence(found.message));
      if (found.candidates.length > 1) {
        const viewer = viewerOf(session);
        if (viewer === null) throw new Error('no viewer for a session');
        const choices = found.candidates.map((c) => ({ url: c.url, title: c.title }));
        return sendPage(reply, 200, choicePage(viewer, form, choices));
      }
      const only = found.candidates[0];
      if (only !== undefined) {
        form.url = only.url;
        discovered = true; // read just now: subscribing need not find it again
      }
    }
    let created: boolean;
    try {
      const result = await subscribe(refreshDeps, session.accountId, {
        url: form.url,
        title: form.title,
        include: form.include,
        exclude: form.exclude,
        discovered,
      });
      created = result.created;
    } catch (err) {
      if (err instanceof SubscribeError) return refuse(sentence(err.message));
      throw err;
    }
    return seeOther(reply, `/feeds?notice=${created ? 'added' : 'already'}`);
  });

  scope.post('/feeds/:id/rename', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    const title = (field(formOf(request), 'title') ?? '').trim();
    if (id === null) throw new WebError(404, 'You follow no such feed.');
    if (title.length > TITLE_MAX) {
      const error = `That name is too long: at most ${TITLE_MAX} characters.`;
      return sendPage(reply, 400, await view(session, { error }));
    }
    if (!(await renameSubscription(deps.store.db, session.accountId, id, title === '' ? null : title))) {
      throw new WebError(404, 'You follow no such feed.');
    }
    return seeOther(reply, '/feeds?notice=renamed');
  });

  scope.post('/feeds/:id/filters', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    if (id === null) throw new WebError(404, 'You follow no such feed.');
    const body = formOf(request);
    let filters: { include: string | null; exclude: string | null };
    try {
      filters = checkFilters(field(body, 'include') ?? '', field(body, 'exclude') ?? '');
    } catch (err) {
      if (!(err instanceof SubscribeError)) throw err;
      return sendPage(reply, 400, await view(session, { error: `Filters: ${err.message}.` }));
    }
    if (!(await updateSubscriptionFilters(deps.store.db, session.accountId, id, filters))) {
      throw new WebError(404, 'You follow no such feed.');
    }
    return seeOther(reply, '/feeds?notice=filtered');
  });

  scope.post('/feeds/:id/remove', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    if (id === null || !(await deleteSubscription(deps.store.db, session.accountId, id))) {
      throw new WebError(404, 'You follow no such feed.');
    }
    await deleteOrphanFeeds(deps.store.db);
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
