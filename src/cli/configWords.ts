import type { ConfigError, ConfigFacts } from '../configProblems.js';
import type { Locale } from '../i18n/locale.js';

/**
 * A configuration Tidings refused, in the operator's language: each variable's problem worded from its
 * facts (src/configProblems.ts); English is the error's own message, as scripts and the docs quote it. A
 * problem without facts (a TIDINGS_TRUST_PROXY entry, a certificate file) keeps its English words.
 */
export function configErrorWords(err: ConfigError, locale: Locale): string {
  if (locale.lang === 'en' || err.problems.length === 0) return err.message;
  const lines = err.problems.map(
    (p) => `  ${p.variable}: ${p.facts === undefined ? p.message : factsWords(p.facts, locale)}`,
  );
  return [locale.t('cli.config.invalid'), ...lines].join('\n');
}

function factsWords(facts: ConfigFacts, locale: Locale): string {
  switch (facts.reason) {
    case 'not_a_number':
    case 'not_whole':
    case 'empty':
    case 'url':
    case 'direct_url_needs_postgres':
      return locale.t('cli.config.problem', { reason: facts.reason });
    case 'too_small':
      return locale.t('cli.config.tooSmall', { min: facts.min });
    case 'too_big':
      return locale.t('cli.config.tooBig', { max: facts.max });
    case 'too_long':
      return locale.t('cli.config.tooLong', { max: facts.max });
    case 'one_of':
      return locale.t('cli.config.oneOf', { values: facts.values });
    case 'expected':
      // The IMAP address's own message: its words are long enough to stand alone.
      if (facts.what === 'imapUrl') return locale.t('cli.config.imapUrl');
      return locale.t('cli.config.expected', { what: facts.what });
    case 'imap_encoding':
      return locale.t('cli.config.imapEncoding');
    case 'proxy_hops':
      return locale.t('cli.config.proxy', {
        kind: 'hops',
        hops: facts.hops,
        entry: '',
        prefixMax: 0,
        max: facts.max,
      });
    case 'proxy_entry':
      return locale.t('cli.config.proxy', {
        kind: 'entry',
        hops: 0,
        entry: facts.entry,
        prefixMax: 0,
        max: facts.max,
      });
    case 'proxy_prefix':
      return locale.t('cli.config.proxy', {
        kind: 'prefix',
        hops: 0,
        entry: facts.entry,
        prefixMax: facts.prefixMax,
        max: facts.max,
      });
    case 'proxy_empty_entry':
      return locale.t('cli.config.proxy', {
        kind: 'empty',
        hops: 0,
        entry: '',
        prefixMax: 0,
        max: facts.max,
      });
    case 'both_or_neither':
      return locale.t('cli.config.bothOrNeither', { other: facts.other });
    case 'file_unreadable':
      return locale.t('cli.config.fileUnreadable', { file: facts.file, code: facts.code });
    case 'sslmode':
      return locale.t('cli.config.sslmode', { mode: facts.mode, modes: facts.modes });
    case 'database_scheme':
      return locale.t('cli.config.databaseScheme', { url: facts.url });
    case 'required_with':
      return locale.t('cli.config.requiredWith', { other: facts.other });
    case 'same_port':
      return locale.t('cli.config.samePort', { port: String(facts.port) });
    case 'language_unknown':
      return locale.t('cli.config.languageUnknown', { typed: facts.typed, codes: facts.codes });
  }
}
