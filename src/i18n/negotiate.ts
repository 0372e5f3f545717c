import Negotiator from 'negotiator';
import { LANGUAGE_TAGS, languageOf } from './languages.js';

/** Accept-Language headers longer than this are not read (a browser's is a few dozen characters). */
const HEADER_LIMIT = 1024;

/**
 * The language of a browser's Accept-Language header that Tidings speaks, best first by its q-values
 * ("de-AT,de;q=0.9,en;q=0.5" → "de"); null when it names none of them (or no header, or an oversized one).
 */
export function acceptedLanguage(header: string | undefined): string | null {
  if (header === undefined || header === '' || header.length > HEADER_LIMIT) return null;
  // A browser's "zh-CN" is offered as itself (Negotiator matches "zh-CN" only to "zh-CN" or "zh"), and
  // languageOf maps it to its language.
  const offered = LANGUAGE_TAGS.filter((c) => c !== 'en-XA');
  const best = new Negotiator({ headers: { 'accept-language': header } }).languages([...offered])[0];
  return best === undefined ? null : (languageOf(best)?.code ?? null);
}

/**
 * The language a reader gets: the account's own setting, else (before sign-in, or an account without one)
 * the browser's, else the operator's TIDINGS_LANGUAGE, else English.
 */
export function chosenLanguage(choice: {
  account?: string | null;
  acceptLanguage?: string | undefined;
  operatorDefault?: string | null;
}): string {
  const account = choice.account == null ? undefined : languageOf(choice.account)?.code;
  return (
    account ??
    acceptedLanguage(choice.acceptLanguage) ??
    (choice.operatorDefault == null ? undefined : languageOf(choice.operatorDefault)?.code) ??
    'en'
  );
}
