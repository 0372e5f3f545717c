import type * as z from 'zod';

/**
 * What a configuration variable must look like, for the messages of config.ts's schema that say so: the
 * English words, and the key the CLI words them by in the operator's language (problemOf reads an issue's
 * message back to its key).
 */
export const EXPECTED = {
  boolean: 'expected true or false',
  publish: 'expected [HOST:]PORT, as in 127.0.0.1:8080',
  postgresUrl: 'expected a postgres:// URL',
  language: 'expected a language code such as en or pt-BR',
  smtpUrl: 'expected smtp://[user:pass@]host[:port] or smtps://…',
  mailFrom:
    'expected an address, such as tidings@example.com or "Tidings <tidings@example.com>" (an address an SMTP server takes: see docs/operating.md#email)',
  bareAddress: 'expected a bare address, such as unsubscribe@example.com (a mailbox someone reads)',
  mailDomain: 'expected a mail domain, such as in.example.org (newsletters are sent to TOKEN@that domain)',
  secret: 'expected at least 16 printable characters, no spaces',
  imapUrl:
    'expected imap://USER:PASSWORD@HOST[:PORT]/MAILBOX or imaps://… (user and password percent-encoded)',
} as const;

export type Expected = keyof typeof EXPECTED;

/** Why a variable's value is refused, as facts the CLI words in the operator's language. */
export type ConfigFacts =
  | { reason: 'not_a_number' }
  | { reason: 'not_whole' }
  | { reason: 'too_small'; min: number }
  | { reason: 'too_big'; max: number }
  | { reason: 'empty' }
  | { reason: 'too_long'; max: number }
  | { reason: 'one_of'; values: string }
  | { reason: 'url' }
  | { reason: 'expected'; what: Expected }
  | { reason: 'required_with'; other: string }
  | { reason: 'same_port'; port: number }
  | { reason: 'direct_url_needs_postgres' }
  | { reason: 'language_unknown'; typed: string; codes: string }
  | { reason: 'imap_encoding' }
  | { reason: 'proxy_hops'; hops: number; max: number }
  | { reason: 'proxy_entry'; entry: string; max: number }
  | { reason: 'proxy_prefix'; entry: string; prefixMax: number; max: number }
  | { reason: 'proxy_empty_entry'; max: number }
  | { reason: 'both_or_neither'; other: string }
  | { reason: 'file_unreadable'; file: string; code: string }
  | { reason: 'sslmode'; mode: string; modes: string }
  | { reason: 'database_scheme'; url: string };

/** One variable's problem: its English words (the message's line), and its facts when Tidings has them. */
export interface ConfigProblem {
  variable: string;
  message: string;
  facts?: ConfigFacts;
}

/**
 * A configuration Tidings cannot run with. Its message is English, one line per variable after "invalid
 * configuration:" (the CLI's and the logs'); `problems` holds the same with their facts. A ConfigError
 * made from a sentence (a database URL's scheme) has none.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly problems: readonly ConfigProblem[];
  /** `sentence`: the English message, when it is not the problems' lines (a database URL's scheme). */
  constructor(problems: readonly ConfigProblem[] | string, sentence?: string) {
    super(
      typeof problems === 'string'
        ? problems
        : (sentence ??
            `invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`),
    );
    this.problems = typeof problems === 'string' ? [] : problems;
  }
}

const EXPECTED_BY_MESSAGE = new Map<string, Expected>(
  Object.entries(EXPECTED).map(([key, message]) => [message, key as Expected]),
);

/** A zod issue of the configuration's schema as a problem, its facts read from the issue. */
export function problemOf(issue: z.core.$ZodIssue): ConfigProblem {
  const problem = { variable: issue.path.join('.'), message: issue.message };
  const facts = factsOf(issue);
  return facts === undefined ? problem : { ...problem, facts };
}

function factsOf(issue: z.core.$ZodIssue): ConfigFacts | undefined {
  // A check of the schema's own gives its facts with its issue (configProxy.ts).
  const given: unknown = issue.code === 'custom' ? issue.params?.facts : undefined;
  if (given !== undefined) return given as ConfigFacts;
  const expected = EXPECTED_BY_MESSAGE.get(issue.message);
  if (expected !== undefined) return { reason: 'expected', what: expected };
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'number') return { reason: 'not_a_number' };
      return issue.expected === 'int' ? { reason: 'not_whole' } : undefined;
    case 'too_small':
      if (issue.origin === 'string') return { reason: 'empty' };
      return issue.origin === 'number' ? { reason: 'too_small', min: Number(issue.minimum) } : undefined;
    case 'too_big':
      if (issue.origin === 'string') return { reason: 'too_long', max: Number(issue.maximum) };
      return issue.origin === 'number' ? { reason: 'too_big', max: Number(issue.maximum) } : undefined;
    case 'invalid_value':
      return { reason: 'one_of', values: issue.values.map(String).join(', ') };
    case 'invalid_format':
      return issue.format === 'url' ? { reason: 'url' } : undefined;
    default:
      return undefined;
  }
}
