import type { ActionDone, ActionPreview } from '../../../accounts/digestActions.js';
import type { DigestShare } from '../../../accounts/digestShare.js';
import type { Locale } from '../../../i18n/locale.js';
import { type PerDigest, type PerDigestChoice, DEFAULT_PER_DIGEST } from '../../../lib/digestShare.js';
import { type SafeHtml, html } from '../html.js';
import { button, message, titled, until } from './actionPage.js';

/* What the pages of a digest's action links say (pages/digestActions.ts), in the account's language. */

/** A feed's share as a message's values: `{all, select, yes {…} other {{n, plural, =0 {…} other {…}}}}`. */
const entriesValues = (perDigest: PerDigest): { all: 'yes' | 'no'; n: number } =>
  perDigest === 'all' ? { all: 'yes', n: 0 } : { all: 'no', n: perDigest };

/** The same, and `{byDefault}`: "up to 3 of its entries (the default)". */
const shareValues = (share: DigestShare): { all: 'yes' | 'no'; n: number; byDefault: 'yes' | 'no' } => ({
  ...entriesValues(share.perDigest),
  byDefault: share.perDigestDefault ? 'yes' : 'no',
});

/** An Undo's label: "Undo: back to 3 (the default)", "… to all", "… to 5". */
const backTo = (locale: Locale, choice: PerDigestChoice): string =>
  choice === 'default'
    ? locale.t('web.action.undo.backToDefault', { n: DEFAULT_PER_DIGEST })
    : choice === 'all'
      ? locale.t('web.action.undo.backToAll')
      : locale.t('web.action.undo.backTo', { n: choice });

function mutedLine(locale: Locale, share: DigestShare, zone: string): SafeHtml | null {
  return share.mutedUntil === null
    ? null
    : html`<p>
        ${message(locale, 'web.action.mutedUntil', { until: until(locale, share.mutedUntil, zone) }, ['until'])}
      </p>`;
}

const para = (content: SafeHtml): SafeHtml => html`<p>${content}</p>`;
const notice = (content: SafeHtml): SafeHtml => html`<p class="notice" role="status">${content}</p>`;

export function previewBody(locale: Locale, p: ActionPreview, path: string, zone: string): SafeHtml {
  switch (p.kind) {
    case 'keep': {
      const title = { title: titled(p.title) };
      return p.queued
        ? para(message(locale, 'web.action.keep.waiting', title, ['title']))
        : html`${para(message(locale, 'web.action.keep.preview', title, ['title']))}
            <div class="row">${button(path, locale.t('web.action.keep.button'))}</div>`;
    }
    case 'fewer':
    case 'more': {
      const same = p.next === p.share.perDigest && !p.share.perDigestDefault;
      const shows = message(
        locale,
        'web.action.share.shows',
        { ...shareValues(p.share), feed: titled(p.feedName) },
        ['feed'],
      );
      return html`${para(shows)} ${mutedLine(locale, p.share, zone)}
      ${
        same
          ? para(message(locale, 'web.action.share.already', { kind: p.kind }))
          : html`${para(message(locale, 'web.action.share.next', { kind: p.kind, ...entriesValues(p.next) }))}
              <div class="row">${button(path, locale.t('web.action.share.button', { kind: p.kind }))}</div>`
      }`;
    }
    case 'mute':
      return html`${para(
          message(
            locale,
            'web.action.mute.preview',
            { feed: titled(p.feedName), until: until(locale, p.until, zone) },
            ['feed', 'until'],
          ),
        )}
        ${mutedLine(locale, p.share, zone)}
        <div class="row">${button(path, locale.t('web.action.mute.button'))}</div>`;
    case 'unmute':
      return p.share.mutedUntil === null
        ? para(message(locale, 'web.action.unmute.notMuted', { feed: titled(p.feedName) }, ['feed']))
        : html`${mutedLine(locale, p.share, zone)} ${para(message(locale, 'web.action.unmute.preview'))}
            <div class="row">${button(path, locale.t('web.action.unmute.button'))}</div>`;
    case 'unfollowed':
      return para(message(locale, 'web.action.unfollowed', { feed: titled(p.feedName) }, ['feed']));
  }
}

export function doneBody(locale: Locale, d: ActionDone, path: string, zone: string): SafeHtml {
  switch (d.kind) {
    case 'keep': {
      const title = { title: titled(d.title) };
      return d.undo === null || d.undo.kind !== 'keep'
        ? notice(message(locale, 'web.action.keep.already', title, ['title']))
        : html`${notice(message(locale, 'web.action.keep.done', title, ['title']))}
            <div class="row">
              ${button(path, locale.t('web.action.keep.undo'), { undo: '1', queued: String(d.undo.queueItemId) }, 'quiet')}
            </div>`;
    }
    case 'fewer':
    case 'more': {
      const values = { ...shareValues(d.share), feed: titled(d.feedName) };
      if (d.undo === null || d.undo.kind !== 'share') {
        return notice(message(locale, 'web.action.share.unchanged', values, ['feed']));
      }
      return html`${notice(message(locale, 'web.action.share.done', values, ['feed']))}
        ${mutedLine(locale, d.share, zone)}
        <div class="row">
          ${button(path, backTo(locale, d.undo.previous), { undo: '1', previous: String(d.undo.previous) }, 'quiet')}
        </div>`;
    }
    case 'mute':
      return html`${notice(
          message(
            locale,
            'web.action.mute.done',
            {
              feed: titled(d.feedName),
              until: d.share.mutedUntil === null ? '' : until(locale, d.share.mutedUntil, zone),
            },
            ['feed', 'until'],
          ),
        )}
        <div class="row">${button(path, locale.t('web.action.mute.undo'), { undo: '1' }, 'quiet')}</div>`;
    case 'unmute':
      return d.undo === null || d.undo.kind !== 'remute'
        ? notice(message(locale, 'web.action.unmute.unchanged', { feed: titled(d.feedName) }, ['feed']))
        : html`${notice(message(locale, 'web.action.unmute.done', { feed: titled(d.feedName) }, ['feed']))}
            <div class="row">
              ${button(path, locale.t('web.action.unmute.undo'), { undo: '1', until: d.undo.until }, 'quiet')}
            </div>`;
    case 'unfollowed':
      return para(message(locale, 'web.action.unfollowed', { feed: titled(d.feedName) }, ['feed']));
  }
}
