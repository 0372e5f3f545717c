import type { ArchivedDigest } from '../../../accounts/digests.js';
import type { Slot } from '../../../digest/schedule.js';
import { type SafeHtml, html } from '../html.js';
import { type Viewer, csrfField } from '../layout.js';
import { localTime, timeElement } from '../time.js';

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
  if (today !== null) {
    return html`<h2>A digest now</h2>
      <p>
        Today has its digest already (<a href="${today.webUrl}">read it</a>), and Tidings builds one digest a
        day. ${nextDigestLine(next, zone)} To have it sooner, change the <a href="#time">send time</a> or the
        days above.
      </p>`;
  }
  return html`<h2>A digest now</h2>
    <form class="stack" method="post" action="/settings/digest-now">
      ${csrfField(viewer)}
      <p>
        Builds today’s digest now from what waits in your queue, instead of at the send time (once a day: the
        next digest then comes on the next scheduled day).
      </p>
      <div><button class="quiet" type="submit">Send me a digest now</button></div>
    </form>`;
}

/** "What you queue from now on comes in your next digest, Wednesday 25 November 2026, 07:00." */
export function nextDigestLine(next: Slot | null, zone: string, words = 'from now on'): SafeHtml {
  if (next === null) return html`What you queue ${words} comes in your next digest.`;
  const iso = next.at.toISOString();
  return html`What you queue ${words} comes in your next digest,
  ${timeElement(iso, zone, localTime(iso, zone))}.`;
}
