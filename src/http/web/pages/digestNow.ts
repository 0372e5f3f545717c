import type { ArchivedDigest } from '../../../accounts/digests.js';
import type { Slot } from '../../../digest/schedule.js';
import type { Locale } from '../../../i18n/locale.js';
import { SafeHtml, html, markup } from '../html.js';
import { type Viewer, csrfField } from '../layout.js';
import { localeTimeElement } from '../localeTime.js';

/**
 * "A digest now" on the Settings page. Digests are one per local day (the schedule and the archive are
 * keyed by it), so once today has its digest there is nothing "Send me a digest now" could build: instead
 * of a button that would only say so, the section says when the next digest comes and how to have it
 * sooner (an earlier send time or another day). See docs/web.md.
 */
export function digestNowSection(
  viewer: Viewer,
  today: ArchivedDigest | null,
  next: Slot | null,
  zone: string,
): SafeHtml {
  const { locale } = viewer;
  if (today !== null) {
    return html`<h2>${locale.t('web.settings.digestNow.heading')}</h2>
      <p>
        ${new SafeHtml(locale.html('web.settings.digestNow.already', markup.link(today.webUrl), markup.linkNames))}
        ${nextDigestLine(locale, next, zone)}
        ${new SafeHtml(locale.html('web.settings.digestNow.sooner', markup.link('#time'), markup.linkNames))}
      </p>`;
  }
  return html`<h2>${locale.t('web.settings.digestNow.heading')}</h2>
    <form class="stack" method="post" action="/settings/digest-now">
      ${csrfField(viewer)}
      <p>${locale.t('web.settings.digestNow.explain')}</p>
      <div><button class="quiet" type="submit">${locale.t('web.settings.digestNow.button')}</button></div>
    </form>`;
}

/** "What you queue from now on comes in your next digest, Wednesday 25 November 2026, 07:00." */
export function nextDigestLine(
  locale: Locale,
  next: Slot | null,
  zone: string,
  when: 'now' | 'fromNowOn' = 'fromNowOn',
): SafeHtml {
  if (next === null) return html`${locale.t('web.settings.nextDigestNone', { when })}`;
  const time = localeTimeElement(locale, next.at.toISOString(), zone).value;
  return new SafeHtml(locale.html('web.settings.nextDigest', { when, time }, ['time']));
}
