/**
 * The pseudo-locale en-XA's text: every ASCII letter accented and each vowel doubled (about a third
 * longer, as translations often are). A page rendered in it shows at a glance, and to a test, any English
 * word that did not come from a catalogue. Used by the compiler (scripts/i18n/) on the English catalogue
 * and by Locale on what Intl writes (month and day names).
 */
const PLAIN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
// One UTF-16 unit each: indexed as PLAIN is.
const ACCENTED = 'åƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ';
const VOWELS = new Set('aeiouAEIOU');

export function pseudoText(text: string): string {
  let out = '';
  for (const c of text) {
    const i = PLAIN.indexOf(c);
    const accented = i === -1 ? c : (ACCENTED[i] ?? c);
    out += VOWELS.has(c) ? accented + accented : accented;
  }
  return out;
}
