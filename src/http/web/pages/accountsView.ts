import { INVITATION_DAYS, DEFAULT_INVITATION_DAYS, type Invitation } from '../../../accounts/invitations.js';
import type { Account } from '../../../store/accounts.js';
import { type SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { ago, localTime, timeElement } from '../time.js';

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
  return page({
    title: 'Accounts',
    locale: v.viewer.locale,
    viewer: v.viewer,
    current: 'accounts',
    body: html`<h1>Accounts</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${v.error === undefined ? null : html`<p class="error" role="alert">${v.error}</p>`}
      ${v.createdAccount === undefined ? null : createdAccountPanel(v.createdAccount)}
      ${v.createdInvitation === undefined ? null : createdInvitationPanel(v, v.createdInvitation)}
      <p>
        As an administrator you invite people, make accounts for them, and disable an account (it can no
        longer sign in, its keys are refused and it gets no digests; nothing in it is deleted).
      </p>
      <h2>People</h2>
      <ul class="items">
        ${v.accounts.map((a) => accountRow(a, v))}
      </ul>
      ${inviteForm(v)} ${invitationList(v)} ${createForm(v)}`,
  });
}

function accountRow(a: Account & { queued: number }, v: AccountsView): SafeHtml {
  const own = a.id === v.self;
  const facts = [
    `#${a.id}`,
    a.email ?? 'no email address',
    `${a.queued.toLocaleString('en')} link${a.queued === 1 ? '' : 's'} queued`,
    ...(a.is_admin ? ['administrator'] : []),
  ];
  return html`<li>
    <div class="main">
      <span class="title">${a.name}</span>${own ? html` <span class="muted">(you)</span>` : null}
      <div class="meta">
        ${facts.join(' · ')} · created ${timeElement(a.created_at, v.zone, ago(a.created_at, v.now))}
        ${
          a.disabled_at === null
            ? null
            : html`·
                <strong>disabled</strong> ${timeElement(a.disabled_at, v.zone, ago(a.disabled_at, v.now))}`
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
                aria-label="${a.disabled_at === null ? 'Disable' : 'Enable'} ${a.name}"
              >
                ${a.disabled_at === null ? 'Disable' : 'Enable'}
              </button>
            </form>
            <form method="post" action="/accounts/${a.id}/admin">
              ${csrfField(v.viewer)}
              ${a.is_admin ? null : html`<input type="hidden" name="admin" value="on" />`}
              <button
                class="quiet"
                type="submit"
                aria-label="${a.is_admin ? 'Remove administrator' : 'Make administrator'}: ${a.name}"
              >
                ${a.is_admin ? 'Remove administrator' : 'Make administrator'}
              </button>
            </form>
          </div>`
    }
  </li>`;
}

function createdAccountPanel(created: { id: number; name: string; apiKey: string }): SafeHtml {
  return html`<section class="panel" aria-labelledby="created-account-heading">
    <h2 id="created-account-heading">Account “${created.name}” is created</h2>
    <p>
      <strong>Copy its key now: it is shown only this once.</strong> Give it to ${created.name}: it signs in
      here and saves links. In Settings they can then change their name and the rest.
    </p>
    <label for="created-account-key">API key of account #${created.id}</label>
    <input id="created-account-key" type="text" readonly value="${created.apiKey}" spellcheck="false" />
  </section>`;
}

function createdInvitationPanel(v: AccountsView, created: { url: string; invitation: Invitation }): SafeHtml {
  const { invitation } = created;
  return html`<section class="panel" aria-labelledby="created-invitation-heading">
    <h2 id="created-invitation-heading">Invitation link</h2>
    <p>
      <strong>Copy the link now: it is shown only this once.</strong> Send it to the person you invite. It
      works once, until ${until(invitation.expires_at, v)}.
    </p>
    <label for="invitation-url">Link</label>
    <input id="invitation-url" type="text" readonly value="${created.url}" spellcheck="false" />
  </section>`;
}

function inviteForm(v: AccountsView): SafeHtml {
  return html`<h2 id="invite-heading">Invite someone</h2>
    <form class="stack" method="post" action="/accounts/invitations" aria-labelledby="invite-heading">
      ${csrfField(v.viewer)}
      <div>
        <label for="invite-note">Who it is for (optional)</label>
        <input id="invite-note" name="note" type="text" maxlength="200" placeholder="Ada" />
      </div>
      <div>
        <label for="invite-email">Their email address (optional)</label>
        <input id="invite-email" name="email" type="email" autocomplete="off" maxlength="320" />
        <p class="hint">Their account starts with it; they can change it. Tidings does not send the link.</p>
      </div>
      <div>
        <label for="invite-days">The link works for</label>
        <select id="invite-days" name="days">
          ${INVITATION_DAYS.map(
            (d) =>
              html`<option value="${d}" ${d === DEFAULT_INVITATION_DAYS ? html` selected` : null}>
                ${d} day${d === 1 ? '' : 's'}
              </option>`,
          )}
        </select>
      </div>
      <div><button type="submit">Create invitation link</button></div>
    </form>`;
}

function invitationList(v: AccountsView): SafeHtml {
  if (v.invitations.length === 0) return html`<p class="muted">No invitation is waiting to be used.</p>`;
  return html`<h2>Waiting invitations</h2>
    <ul class="items">
      ${v.invitations.map((i) => {
        const who = i.note ?? i.email ?? `invitation #${i.id}`;
        return html`<li>
          <div class="main">
            <span class="title">${who}</span>
            <div class="meta">
              ${i.email === null || i.email === who ? null : html`${i.email} · `} made
              ${timeElement(i.created_at, v.zone, ago(i.created_at, v.now))} · works until
              ${until(i.expires_at, v)}
            </div>
          </div>
          <div class="actions">
            <form method="post" action="/accounts/invitations/${i.id}/revoke">
              ${csrfField(v.viewer)}
              <button class="danger" type="submit" aria-label="Withdraw invitation: ${who}">Withdraw</button>
            </form>
          </div>
        </li>`;
      })}
    </ul>`;
}

function createForm(v: AccountsView): SafeHtml {
  return html`<h2 id="create-account-heading">Create an account</h2>
    <p>For someone who will not open an invitation: you get its key, shown once, to pass on.</p>
    <form class="stack" method="post" action="/accounts" aria-labelledby="create-account-heading">
      ${csrfField(v.viewer)}
      <div>
        <label for="account-name">Name</label>
        <input id="account-name" name="name" type="text" required maxlength="200" />
      </div>
      <div>
        <label for="account-email">Email address (optional)</label>
        <input id="account-email" name="email" type="email" autocomplete="off" maxlength="320" />
      </div>
      <div>
        <label for="account-timezone">Time zone</label>
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
      <label class="check"><input type="checkbox" name="admin" /> An administrator too</label>
      <div><button type="submit">Create account</button></div>
    </form>`;
}

/** When an invitation stops working: the moment in the administrator's zone. */
const until = (iso: string, v: AccountsView): SafeHtml => timeElement(iso, v.zone, localTime(iso, v.zone));
