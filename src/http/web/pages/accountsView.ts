import { INVITATION_DAYS, DEFAULT_INVITATION_DAYS, type Invitation } from '../../../accounts/invitations.js';
import type { Account } from '../../../store/accounts.js';
import { type SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { ago, localTime, timeElement } from '../time.js';
import { message } from './actionPage.js';

export interface AccountsView {
  viewer: Viewer;
  /** The administrator looking: their own row has no buttons (nobody disables or demotes themselves). */
  self: number;
  zone: string;
  now: Date;
  accounts: (Account & { queued: number })[];
  invitations: Invitation[];
  notice?: string | undefined;
  error?: string | undefined;
  /** An account just made: its first key, shown in this answer only. */
  createdAccount?: { id: number; name: string; apiKey: string } | undefined;
  /** An invitation just made: its link, shown in this answer only. */
  createdInvitation?: { url: string; invitation: Invitation } | undefined;
}

export function accountsPage(v: AccountsView): SafeHtml {
  const { locale } = v.viewer;
  return page({
    title: locale.t('web.accounts.title'),
    locale: v.viewer.locale,
    viewer: v.viewer,
    current: 'accounts',
    body: html`<h1>${locale.t('web.accounts.title')}</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${v.error === undefined ? null : html`<p class="error" role="alert">${v.error}</p>`}
      ${v.createdAccount === undefined ? null : createdAccountPanel(v, v.createdAccount)}
      ${v.createdInvitation === undefined ? null : createdInvitationPanel(v, v.createdInvitation)}
      <p>${locale.t('web.accounts.intro')}</p>
      <h2>${locale.t('web.accounts.people')}</h2>
      <ul class="items">
        ${v.accounts.map((a) => accountRow(a, v))}
      </ul>
      ${inviteForm(v)} ${invitationList(v)} ${createForm(v)}`,
  });
}

function accountRow(a: Account & { queued: number }, v: AccountsView): SafeHtml {
  const own = a.id === v.self;
  const { locale } = v.viewer;
  const facts = [
    `#${a.id}`,
    a.email ?? locale.t('web.accounts.noEmail'),
    locale.t('web.accounts.queued', { n: a.queued }),
    ...(a.is_admin ? [locale.t('web.accounts.administrator')] : []),
  ];
  const you = html` <span class="muted">${locale.t('web.accounts.you')}</span>`;
  const when = (iso: string): SafeHtml => timeElement(iso, v.zone, ago(iso, v.now, locale), locale);
  return html`<li>
    <div class="main">
      <span class="title">${a.name}</span>${own ? you : null}
      <div class="meta">
        ${facts.join(' · ')} ·
        ${message(locale, 'web.accounts.createdAgo', { when: when(a.created_at).value }, ['when'])}
        ${
          a.disabled_at === null
            ? null
            : html`·
                <strong>${locale.t('web.accounts.disabled')}</strong>
                ${when(a.disabled_at)}`
        }
      </div>
    </div>
    ${
      own
        ? null
        : html`<div class="actions">
            <form method="post" action="/accounts/${a.id}/${a.disabled_at === null ? 'disable' : 'enable'}">
              ${csrfField(v.viewer)}
              <button
                class="${a.disabled_at === null ? 'danger' : 'quiet'}"
                type="submit"
                aria-label="${locale.t(
                  a.disabled_at === null ? 'web.accounts.disableLabel' : 'web.accounts.enableLabel',
                  { name: a.name },
                )}"
              >
                ${locale.t(a.disabled_at === null ? 'web.accounts.disable' : 'web.accounts.enable')}
              </button>
            </form>
            <form method="post" action="/accounts/${a.id}/admin">
              ${csrfField(v.viewer)}
              ${a.is_admin ? null : html`<input type="hidden" name="admin" value="on" />`}
              <button
                class="quiet"
                type="submit"
                aria-label="${locale.t(
                  a.is_admin ? 'web.accounts.removeAdminLabel' : 'web.accounts.makeAdminLabel',
                  { name: a.name },
                )}"
              >
                ${locale.t(a.is_admin ? 'web.accounts.removeAdmin' : 'web.accounts.makeAdmin')}
              </button>
            </form>
          </div>`
    }
  </li>`;
}

function createdAccountPanel(
  v: AccountsView,
  created: { id: number; name: string; apiKey: string },
): SafeHtml {
  const { locale } = v.viewer;
  return html`<section class="panel" aria-labelledby="created-account-heading">
    <h2 id="created-account-heading">
      ${locale.t('web.accounts.createdAccount.heading', { name: created.name })}
    </h2>
    <p>
      <strong>${locale.t('web.accounts.createdAccount.copy')}</strong>
      ${locale.t('web.accounts.createdAccount.give', { name: created.name })}
    </p>
    <label for="created-account-key"
      >${locale.t('web.accounts.createdAccount.key', { id: String(created.id) })}</label
    >
    <input id="created-account-key" type="text" readonly value="${created.apiKey}" spellcheck="false" />
  </section>`;
}

function createdInvitationPanel(v: AccountsView, created: { url: string; invitation: Invitation }): SafeHtml {
  const { invitation } = created;
  const { locale } = v.viewer;
  return html`<section class="panel" aria-labelledby="created-invitation-heading">
    <h2 id="created-invitation-heading">${locale.t('web.accounts.createdInvitation.heading')}</h2>
    <p>
      <strong>${locale.t('web.accounts.createdInvitation.copy')}</strong>
      ${message(
        locale,
        'web.accounts.createdInvitation.send',
        { until: until(invitation.expires_at, v).value },
        ['until'],
      )}
    </p>
    <label for="invitation-url">${locale.t('web.accounts.createdInvitation.link')}</label>
    <input id="invitation-url" type="text" readonly value="${created.url}" spellcheck="false" />
  </section>`;
}

function inviteForm(v: AccountsView): SafeHtml {
  const { locale } = v.viewer;
  return html`<h2 id="invite-heading">${locale.t('web.accounts.invite.heading')}</h2>
    <form class="stack" method="post" action="/accounts/invitations" aria-labelledby="invite-heading">
      ${csrfField(v.viewer)}
      <div>
        <label for="invite-note">${locale.t('web.accounts.invite.note')}</label>
        <input
          id="invite-note"
          name="note"
          type="text"
          maxlength="200"
          placeholder="${locale.t('web.accounts.invite.notePlaceholder')}"
        />
      </div>
      <div>
        <label for="invite-email">${locale.t('web.accounts.invite.email')}</label>
        <input id="invite-email" name="email" type="email" autocomplete="off" maxlength="320" />
        <p class="hint">${locale.t('web.accounts.invite.emailHint')}</p>
      </div>
      <div>
        <label for="invite-days">${locale.t('web.accounts.invite.days')}</label>
        <select id="invite-days" name="days">
          ${INVITATION_DAYS.map(
            (d) =>
              html`<option value="${d}" ${d === DEFAULT_INVITATION_DAYS ? html` selected` : null}>
                ${locale.t('web.accounts.invite.dayCount', { n: d })}
              </option>`,
          )}
        </select>
      </div>
      <div><button type="submit">${locale.t('web.accounts.invite.submit')}</button></div>
    </form>`;
}

function invitationList(v: AccountsView): SafeHtml {
  const { locale } = v.viewer;
  if (v.invitations.length === 0)
    return html`<p class="muted">${locale.t('web.accounts.invitations.none')}</p>`;
  return html`<h2>${locale.t('web.accounts.invitations.heading')}</h2>
    <ul class="items">
      ${v.invitations.map((i) => {
        const who = i.note ?? i.email ?? locale.t('web.accounts.invitations.unnamed', { id: String(i.id) });
        return html`<li>
          <div class="main">
            <span class="title">${who}</span>
            <div class="meta">
              ${i.email === null || i.email === who ? null : html`${i.email} · `}
              ${message(
                locale,
                'web.accounts.invitations.dates',
                {
                  made: timeElement(i.created_at, v.zone, ago(i.created_at, v.now, locale), locale).value,
                  until: until(i.expires_at, v).value,
                },
                ['made', 'until'],
              )}
            </div>
          </div>
          <div class="actions">
            <form method="post" action="/accounts/invitations/${i.id}/revoke">
              ${csrfField(v.viewer)}
              <button
                class="danger"
                type="submit"
                aria-label="${locale.t('web.accounts.invitations.withdrawLabel', { who })}"
              >
                ${locale.t('web.accounts.invitations.withdraw')}
              </button>
            </form>
          </div>
        </li>`;
      })}
    </ul>`;
}

function createForm(v: AccountsView): SafeHtml {
  const { locale } = v.viewer;
  return html`<h2 id="create-account-heading">${locale.t('web.accounts.create.heading')}</h2>
    <p>${locale.t('web.accounts.create.intro')}</p>
    <form class="stack" method="post" action="/accounts" aria-labelledby="create-account-heading">
      ${csrfField(v.viewer)}
      <div>
        <label for="account-name">${locale.t('web.accounts.create.name')}</label>
        <input id="account-name" name="name" type="text" required maxlength="200" />
      </div>
      <div>
        <label for="account-email">${locale.t('web.accounts.create.email')}</label>
        <input id="account-email" name="email" type="email" autocomplete="off" maxlength="320" />
      </div>
      <div>
        <label for="account-timezone">${locale.t('web.accounts.create.timezone')}</label>
        <input
          id="account-timezone"
          name="timezone"
          type="text"
          value="${v.zone}"
          maxlength="100"
          spellcheck="false"
          autocomplete="off"
        />
      </div>
      <label class="check"
        ><input type="checkbox" name="admin" /> ${locale.t('web.accounts.create.admin')}</label
      >
      <div><button type="submit">${locale.t('web.accounts.create.submit')}</button></div>
    </form>`;
}

/** When an invitation stops working: the moment in the administrator's zone. */
const until = (iso: string, v: AccountsView): SafeHtml =>
  timeElement(iso, v.zone, localTime(iso, v.zone, v.viewer.locale), v.viewer.locale);
