import { CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { type ErrorKind, TidingsError } from '../errors.js';
import { languageOf } from '../i18n/languages.js';
import { localeOf, setOperatorLanguage } from '../i18n/locale.js';
import { refusalWords } from '../http/web/refusals.js';
import { redactText } from '../lib/redact.js';
import { configErrorWords } from './configWords.js';
import { type Io, UsageError } from './context.js';
import { DatabaseStartError } from './startError.js';
import { buildProgram } from './program.js';

/**
 * The CLI's answer to each kind of domain error, in one place: 2 for what the operator typed (wrong
 * usage), 1 for a failure of something that was well asked for.
 */
const EXIT_CODES: Record<ErrorKind, number> = {
  url_missing: 2,
  url_invalid: 2,
  url_too_long: 2,
  title_invalid: 2,
  invalid_input: 2,
  email_taken: 2,
  source_failed: 1,
  queue_full: 1,
  limit_reached: 1,
  account_gone: 1,
  not_found: 1,
};

/**
 * Runs one command line (without the leading `node tidings`) and returns its exit code: 0 on success,
 * 1 for a failure, 2 for wrong usage or configuration. Long-running commands (serve) resolve once started.
 */
export async function runCli(args: readonly string[], io: Io): Promise<number> {
  // The operator's language from the first line printed (a refused argument, before any config is read);
  // a code Tidings does not speak is left to the configuration's check, which names it.
  const language = io.env.TIDINGS_LANGUAGE ?? 'en';
  if (languageOf(language) !== undefined) setOperatorLanguage(language);
  const program = await buildProgram(io, args);
  // What a failure prints may quote a URL (DATABASE_URL, a feed's): through the logs' redaction rule.
  const fail = (message: string): void => io.err(`tidings: ${redactText(message)}`);
  try {
    await program.parseAsync([...args], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof TidingsError) {
      fail(refusalOf(err));
      return EXIT_CODES[err.kind];
    }
    if (err instanceof DatabaseStartError) {
      fail(err.message);
      return 1;
    }
    if (err instanceof ConfigError) {
      fail(configErrorWords(err, localeOf(null)));
      return 2;
    }
    if (err instanceof UsageError) {
      fail(err.message);
      return err.exitCode;
    }
    fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
    return 1;
  }
}

/**
 * A refusal in the operator's language: English is the service's own message (the contract scripts read);
 * another language words the refusal's facts where it has them (the web's words, src/http/web/refusals.ts),
 * else keeps the English detail, which only the service has.
 */
function refusalOf(err: TidingsError): string {
  const locale = localeOf(null);
  if (locale.lang === 'en' || err.facts === undefined) return err.message;
  return refusalWords(err.facts, locale);
}
