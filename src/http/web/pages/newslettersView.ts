import type { NewslettersView, SenderDetail, Unsubscribed } from '../../../accounts/newsletterSenders.js';
import type { NewSenderNotice } from '../../../accounts/newsletterSenders.js';
import { mutedAt, mutedForGood } from '../../../lib/digestShare.js';
import type { Locale } from '../../../i18n/locale.js';
import type { LabelKey } from '../localeTime.js';
import { COPY_SCRIPT_PATH } from '../copyScript.js';
import { sentence } from '../errors.js';
import { SafeHtml, html, markup, safeHref } from '../html.js';
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
const WAYS: Record<SenderDetail['unsubscribe'], LabelKey> = {
  'one-click': 'web.newsletters.way.oneClick',
  mailto: 'web.newsletters.way.mailto',
  link: 'web.newsletters.way.link',
  none: 'web.newsletters.way.none',
};

export function newslettersPage(p: NewslettersPage): SafeHtml {
  const { view, viewer } = p;
  const { locale } = viewer;
  return page({
    title: locale.t('web.newsletters.title'),
    locale: viewer.locale,
    viewer,
    current: 'newsletters',
    scripts: view.address === null ? [] : [COPY_SCRIPT_PATH],
    body: html`<h1>${locale.t('web.newsletters.title')}</h1>
      ${p.notice === undefined ? null : html`<p class="notice" role="status">${p.notice}</p>`}
      ${p.error === undefined ? null : html`<p class="error" role="alert">${sentence(p.error)}</p>`}
      ${p.unsubscribed === undefined ? null : unsubscribedNotice(p.unsubscribed, locale)}
      ${view.notices.length === 0 ? null : notices(view.notices, viewer, view.zone, p.now)}
      ${addressSection(view.address, viewer)}
      <h2>${locale.t('web.newsletters.senders')}</h2>
      ${
        view.senders.length === 0
          ? html`<p>${locale.t('web.newsletters.noSenders')}</p>`
          : html`<ul class="feeds">
              ${view.senders.map((s) => senderRow(s, viewer, view.zone, p.now))}
            </ul>`
      }`,
  });
}

function addressSection(address: string | null, viewer: Viewer): SafeHtml {
  const { locale } = viewer;
  const copy = locale.t('web.newsletters.copy');
  if (address === null) {
    return html`<p>${locale.t('web.newsletters.notSetUp', { setting: 'TIDINGS_INBOUND_DOMAIN' })}</p>`;
  }
  return html`<section aria-labelledby="address-heading">
    <h2 id="address-heading">${locale.t('web.newsletters.address')}</h2>
    <p>${locale.t('web.newsletters.addressExplain')}</p>
    <p>
      <code class="mono" id="newsletter-address">${address}</code>
      <button class="quiet" type="button" data-copy="newsletter-address" hidden>${copy}</button>
    </p>
    <details>
      <summary>${locale.t('web.newsletters.rotate')}</summary>
      <form class="stack" method="post" action="/newsletters/rotate">
        ${csrfField(viewer)}
        <p>${locale.t('web.newsletters.rotateExplain')}</p>
        <label class="check"
          ><input type="checkbox" name="confirm" value="yes" required />
          <span>${locale.t('web.newsletters.rotateConfirm')}</span></label
        >
        <div><button class="danger" type="submit">${locale.t('web.newsletters.rotateButton')}</button></div>
      </form>
    </details>
  </section>`;
}

function notices(list: readonly NewSenderNotice[], viewer: Viewer, zone: string, now: Date): SafeHtml {
  const { locale } = viewer;
  return html`<section class="notice" aria-labelledby="new-senders">
    <h2 id="new-senders">${locale.t('web.newsletters.newSender')}</h2>
    <ul>
      ${list.map(
        (n) =>
          html`<li id="new-sender-${n.id}">
            ${new SafeHtml(
              locale.html(
                'web.newsletters.newSenderLine',
                {
                  name: html`<strong dir="auto">${n.senderName}</strong>`.value,
                  address: html`<span class="mono">${n.senderAddress}</span>`.value,
                  linked: n.pageId === null ? 'no' : 'yes',
                  subject:
                    n.pageId === null
                      ? n.subject
                      : html`<a href="/items/${n.pageId}" dir="auto">${n.subject}</a>`.value,
                  when: timeElement(n.receivedAt, zone, ago(n.receivedAt, now, locale), locale).value,
                },
                n.pageId === null ? ['name', 'address', 'when'] : ['name', 'address', 'subject', 'when'],
              ),
            )}
            ${n.forwardedAt === null ? null : locale.t('web.newsletters.forwarded')}
            <form class="inline" method="post" action="/newsletters/notices/${n.id}/dismiss">
              ${csrfField(viewer)}
              <button
                class="link"
                type="submit"
                aria-label="${locale.t('web.newsletters.dismissLabel', { name: n.senderName })}"
              >
                ${locale.t('web.newsletters.dismiss')}
              </button>
            </form>
          </li>`,
      )}
    </ul>
  </section>`;
}

function unsubscribedNotice(u: Unsubscribed, locale: Locale): SafeHtml {
  const who = html`<strong dir="auto">${u.sender.name}</strong> (<span class="mono">${u.sender.address}</span
    >)`.value;
  const target = u.target ?? '';
  const done =
    u.how === 'one-click'
      ? locale.html('web.newsletters.unsubscribed.oneClick', { who }, ['who'])
      : u.how === 'mailto'
        ? locale.html(
            'web.newsletters.unsubscribed.mailto',
            { who, address: html`<span class="mono">${target}</span>`.value },
            ['who', 'address'],
          )
        : u.how === 'link'
          ? locale.html(
              'web.newsletters.unsubscribed.link',
              { who, ...markup.link(safeHref(target), true) },
              ['who', ...markup.linkNames],
            )
          : locale.html('web.newsletters.unsubscribed.none', { who }, ['who']);
  return html`<div class="notice" role="status">
    ${u.failed.map((f) => html`<p>${sentence(f)}</p>`)}
    <p>${new SafeHtml(done)} ${locale.t('web.newsletters.unsubscribed.muted')}</p>
  </div>`;
}

function senderRow(s: SenderDetail, viewer: Viewer, zone: string, now: Date): SafeHtml {
  const { locale } = viewer;
  const at = (iso: string, words: string): string => timeElement(iso, zone, words, locale).value;
  const muted = s.mutedUntil !== null && mutedAt(s.mutedUntil, now);
  const forGood = s.mutedUntil === null || mutedForGood(s.mutedUntil);
  const mutedLine = new SafeHtml(
    locale.html(
      'web.newsletters.muted',
      {
        forGood: forGood ? 'yes' : 'no',
        until:
          s.mutedUntil === null || forGood ? '' : at(s.mutedUntil, localTime(s.mutedUntil, zone, locale)),
        fromNow: s.mutedUntil === null || forGood ? '' : fromNow(s.mutedUntil, now, locale),
      },
      ['until'],
    ),
  );
  const id = s.id;
  return html`<li id="sender-${id ?? `gone-${s.address}`}">
    <div class="main">
      <span class="title" dir="auto">${s.name}</span>
      <div class="meta"><span class="mono">${s.address}</span></div>
      <div class="meta">
        ${new SafeHtml(
          locale.html(
            'web.newsletters.messages',
            { n: s.messages, last: at(s.lastAt, ago(s.lastAt, now, locale)) },
            ['last'],
          ),
        )}
        ${
          s.perDigestDefault
            ? null
            : locale.t('web.newsletters.share', {
                all: s.perDigest === 'all' ? 'yes' : 'no',
                n: s.perDigest === 'all' ? 0 : s.perDigest,
              })
        }
        ${s.priority === 'normal' ? null : locale.t('web.newsletters.priority', { priority: s.priority })}
      </div>
      ${
        s.unsubscribedAt === null || s.unsubscribedHow === null
          ? null
          : html`<div class="meta">
              ${new SafeHtml(
                locale.html(
                  'web.newsletters.unsubscribedAt',
                  {
                    when: at(s.unsubscribedAt, ago(s.unsubscribedAt, now, locale)),
                    how: s.unsubscribedHow === 'one-click' ? 'oneClick' : s.unsubscribedHow,
                  },
                  ['when'],
                ),
              )}
            </div>`
      }
      ${
        !muted || id === null
          ? null
          : html`<form class="meta" method="post" action="/feeds/${id}/unmute">
              ${csrfField(viewer)} <input type="hidden" name="back" value="newsletters" />
              ${mutedLine} —
              <button
                class="link"
                type="submit"
                aria-label="${locale.t('web.newsletters.unmuteLabel', { name: s.name })}"
              >
                ${locale.t('web.newsletters.unmute')}
              </button>
            </form>`
      }
      <div class="meta">${locale.t(WAYS[s.unsubscribe])}</div>
      ${
        id === null
          ? html`<div class="meta">${locale.t('web.newsletters.removed')}</div>`
          : html`<details>
              <summary>${locale.t('web.newsletters.change', { name: s.name })}</summary>
              ${shareForm({ ...s, id }, { viewer }, 'newsletters')}
              <form method="post" action="/newsletters/${id}/unsubscribe">
                ${csrfField(viewer)}
                <button
                  class="danger"
                  type="submit"
                  aria-label="${locale.t('web.newsletters.unsubscribeLabel', { name: s.name })}"
                >
                  ${locale.t('web.newsletters.unsubscribe')}
                </button>
              </form>
            </details>`
      }
    </div>
  </li>`;
}
