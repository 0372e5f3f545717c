import type { NewslettersView, SenderDetail, Unsubscribed } from '../../../accounts/newsletterSenders.js';
import type { NewSenderNotice } from '../../../accounts/newsletterSenders.js';
import { mutedAt, mutedForGood, perDigestWords } from '../../../lib/digestShare.js';
import { COPY_SCRIPT_PATH } from '../copyScript.js';
import { sentence } from '../errors.js';
import { type SafeHtml, html, safeHref } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { ago, fromNow, localTime, timeElement } from '../time.js';
import { shareForm } from './feedRow.js';

/** The Newsletters page (issue 34): the address, the new senders' notices, the senders. HTML only. */

export interface NewslettersPage {
  viewer: Viewer;
  view: NewslettersView;
  now: Date;
  notice?: string | undefined;
  error?: string | undefined;
  /** What an unsubscribe just did. */
  unsubscribed?: Unsubscribed | undefined;
}

/** How each way of unsubscribing reads on a sender. */
const WAYS: Record<SenderDetail['unsubscribe'], string> = {
  'one-click': 'Unsubscribe sends the sender’s one-click request (RFC 8058) from Tidings.',
  mailto: 'Unsubscribe e-mails the sender’s unsubscribe address from Tidings.',
  link: 'Unsubscribe gives you the sender’s unsubscribe page to open.',
  none: 'The sender offers no way to unsubscribe; Unsubscribe only mutes it.',
};

const DONE: Record<'one-click' | 'mailto' | 'link', string> = {
  'one-click': 'by its one-click request',
  mailto: 'by e-mail to its unsubscribe address',
  link: 'by hand, with its page',
};

export function newslettersPage(p: NewslettersPage): SafeHtml {
  const { view, viewer } = p;
  return page({
    title: 'Newsletters',
    locale: viewer.locale,
    viewer,
    current: 'newsletters',
    scripts: view.address === null ? [] : [COPY_SCRIPT_PATH],
    body: html`<h1>Newsletters</h1>
      ${p.notice === undefined ? null : html`<p class="notice" role="status">${p.notice}</p>`}
      ${p.error === undefined ? null : html`<p class="error" role="alert">${sentence(p.error)}</p>`}
      ${p.unsubscribed === undefined ? null : unsubscribedNotice(p.unsubscribed)}
      ${view.notices.length === 0 ? null : notices(view.notices, viewer, view.zone, p.now)}
      ${addressSection(view.address, viewer)}
      <h2>Senders</h2>
      ${
        view.senders.length === 0
          ? html`<p>No newsletter has arrived yet. Subscribe to one with the address above.</p>`
          : html`<ul class="feeds">
              ${view.senders.map((s) => senderRow(s, viewer, view.zone, p.now))}
            </ul>`
      }`,
  });
}

function addressSection(address: string | null, viewer: Viewer): SafeHtml {
  if (address === null) {
    return html`<p>
      Newsletters by e-mail are not set up on this Tidings: its operator sets TIDINGS_INBOUND_DOMAIN to turn
      them on.
    </p>`;
  }
  return html`<section aria-labelledby="address-heading">
    <h2 id="address-heading">Your address</h2>
    <p>
      Subscribe to newsletters with this address: each one becomes an entry of your digest, under Newsletters,
      with its trackers removed.
    </p>
    <p>
      <code class="mono" id="newsletter-address">${address}</code>
      <button class="quiet" type="button" data-copy="newsletter-address" hidden>Copy</button>
    </p>
    <details>
      <summary>Get a new address</summary>
      <form class="stack" method="post" action="/newsletters/rotate">
        ${csrfField(viewer)}
        <p>
          Mail to your current address stops working at once: every newsletter sent to it is refused from then
          on, so give the new one to the senders you keep.
        </p>
        <label class="check"
          ><input type="checkbox" name="confirm" value="yes" required />
          <span>I understand that the old address stops working</span></label
        >
        <div><button class="danger" type="submit">Replace my address</button></div>
      </form>
    </details>
  </section>`;
}

function notices(list: readonly NewSenderNotice[], viewer: Viewer, zone: string, now: Date): SafeHtml {
  return html`<section class="notice" aria-labelledby="new-senders">
    <h2 id="new-senders">New sender — confirm if it asks you to</h2>
    <ul>
      ${list.map(
        (n) =>
          html`<li id="new-sender-${n.id}">
            <strong dir="auto">${n.senderName}</strong> <span class="mono">${n.senderAddress}</span>:
            ${n.pageId === null ? html`“${n.subject}”` : html`<a href="/items/${n.pageId}" dir="auto">${n.subject}</a>`},
            ${timeElement(n.receivedAt, zone, ago(n.receivedAt, now))}.
            ${n.forwardedAt === null ? null : 'It was forwarded to your e-mail too.'}
            <form class="inline" method="post" action="/newsletters/notices/${n.id}/dismiss">
              ${csrfField(viewer)}
              <button class="link" type="submit" aria-label="Dismiss the notice of ${n.senderName}">
                Dismiss
              </button>
            </form>
          </li>`,
      )}
    </ul>
  </section>`;
}

function unsubscribedNotice(u: Unsubscribed): SafeHtml {
  const who = html`<strong dir="auto">${u.sender.name}</strong> (<span class="mono">${u.sender.address}</span
    >)`;
  const done =
    u.how === 'one-click'
      ? html`Unsubscribed from ${who}: Tidings sent its one-click unsubscribe request.`
      : u.how === 'mailto'
        ? html`Unsubscribed from ${who}: Tidings e-mailed its unsubscribe address,
            <span class="mono">${u.target ?? ''}</span>.`
        : u.how === 'link'
          ? html`To unsubscribe from ${who}, open
              <a href="${safeHref(u.target ?? '')}" rel="noopener noreferrer">its unsubscribe page</a> and
              follow its steps.`
          : html`${who} offers no way to unsubscribe.`;
  return html`<div class="notice" role="status">
    ${u.failed.map((f) => html`<p>${sentence(f)}</p>`)}
    <p>${done} It is muted: your digests only count its messages.</p>
  </div>`;
}

function senderRow(s: SenderDetail, viewer: Viewer, zone: string, now: Date): SafeHtml {
  const muted = s.mutedUntil !== null && mutedAt(s.mutedUntil, now);
  const until =
    s.mutedUntil === null || mutedForGood(s.mutedUntil)
      ? 'until you unmute it'
      : html`until ${timeElement(s.mutedUntil, zone, localTime(s.mutedUntil, zone))},
        ${fromNow(s.mutedUntil, now)}`;
  const id = s.id;
  return html`<li id="sender-${id ?? `gone-${s.address}`}">
    <div class="main">
      <span class="title" dir="auto">${s.name}</span>
      <div class="meta"><span class="mono">${s.address}</span></div>
      <div class="meta">
        ${s.messages.toLocaleString('en')} message${s.messages === 1 ? '' : 's'}, the last
        ${timeElement(s.lastAt, zone, ago(s.lastAt, now))}.
        ${s.perDigestDefault ? null : html`Each digest shows ${perDigestWords(s.perDigest)}.`}
        ${s.priority === 'normal' ? null : html`Priority ${s.priority}.`}
      </div>
      ${
        s.unsubscribedAt === null || s.unsubscribedHow === null
          ? null
          : html`<div class="meta">
              You unsubscribed ${timeElement(s.unsubscribedAt, zone, ago(s.unsubscribedAt, now))}
              ${DONE[s.unsubscribedHow]}.
            </div>`
      }
      ${
        !muted || id === null
          ? null
          : html`<form class="meta" method="post" action="/feeds/${id}/unmute">
              ${csrfField(viewer)} <input type="hidden" name="back" value="newsletters" /> Muted ${until}:
              digests only count its messages. —
              <button class="link" type="submit" aria-label="Unmute ${s.name}">Unmute</button>
            </form>`
      }
      <div class="meta">${WAYS[s.unsubscribe]}</div>
      ${
        id === null
          ? html`<div class="meta">You removed its subscription; its next message brings it back.</div>`
          : html`<details>
              <summary>Change “${s.name}”</summary>
              ${shareForm({ ...s, id }, { viewer }, 'newsletters')}
              <form method="post" action="/newsletters/${id}/unsubscribe">
                ${csrfField(viewer)}
                <button class="danger" type="submit" aria-label="Unsubscribe from ${s.name}">
                  Unsubscribe
                </button>
              </form>
            </details>`
      }
    </div>
  </li>`;
}
