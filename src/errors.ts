/**
 * What went wrong, as Tidings itself sees it. Services and pipelines throw a TidingsError with a kind and
 * a message for a person; each transport maps the kind to its own answer in one place: the API's
 * `{code, message}` (src/http/errors.ts), the web page's message (src/http/web/errors.ts) and the CLI's
 * exit code (src/cli/run.ts). Nothing below the transports knows about HTTP statuses or exit codes.
 */
export type ErrorKind =
  /** A save without a URL. */
  | 'url_missing'
  /** A URL that is not an absolute http(s) URL, or that cannot be queued. */
  | 'url_invalid'
  /** A URL longer than the queue takes. */
  | 'url_too_long'
  /** A title that is not valid text or is too long. */
  | 'title_invalid'
  /** The account's queue holds as many items as it may. */
  | 'queue_full'
  /**
   * Another bound of the configuration would be passed: the feeds an account may follow
   * (TIDINGS_MAX_SUBSCRIPTIONS), the feeds one OPML import may list (TIDINGS_MAX_OPML_OUTLINES).
   */
  | 'limit_reached'
  /** The account the caller was authorised for no longer exists. */
  | 'account_gone'
  /** A value the caller gave is not valid: a setting, a name, an e-mail address, a filter, a file. */
  | 'invalid_input'
  /** The e-mail address is another account's (addresses are unique, whatever their case). */
  | 'email_taken'
  /** What the caller named (an account, a subscription, a digest, a key) does not exist for it. */
  | 'not_found'
  /** A remote source (a feed, a page) could not be read or is not what was asked for. */
  | 'source_failed';

/**
 * Why a setting's value is refused (`tidings account set`, the API, the web's Settings), as facts rather
 * than words: the CLI's and the API's English derives from them here (src/accounts/settingRefusals.ts settingProblem), the web words them
 * in the reader's language (src/http/web/refusals.ts settingRefusalWords). `typed` is what the person
 * typed, shown as typed; numbers are the bounds the check used.
 */
export type SettingRefusal =
  | { reason: 'zone_empty' }
  | { reason: 'zone_too_long'; max: number }
  | { reason: 'zone_ambiguous'; typed: string; zones: string[] }
  | { reason: 'zone_unknown'; typed: string }
  | { reason: 'time_invalid'; typed: string }
  | { reason: 'days_empty' }
  | { reason: 'days_invalid'; typed: string }
  | { reason: 'not_whole_number' }
  | { reason: 'number_too_small'; min: number }
  | { reason: 'number_too_large'; max: number }
  | { reason: 'number_out_of_range'; min: number; max: number }
  | { reason: 'email_invalid'; typed: string }
  | { reason: 'order_invalid'; typed: string }
  | { reason: 'language_code_too_long' }
  | { reason: 'language_unknown'; typed: string }
  | { reason: 'flag_invalid'; typed: string };

/**
 * Why a fetch failed. The codes are stable: the scheduler decides on them (retry soon, back off, tell the
 * user) and they may be stored, so never rename one, only add. Defined here, below src/fetch/, so that a
 * refusal's facts can name one.
 */
export type FetchErrorCode =
  | 'bad_url'
  | 'private_address'
  | 'dns'
  | 'connection'
  | 'tls'
  | 'timeout'
  | 'too_many_redirects'
  | 'http_status'
  | 'too_large'
  | 'decompression'
  /** The caller's signal ended the fetch (discovery's overall deadline, say). */
  | 'aborted';

/** Why a feed's fetch is an error: the fetcher's code, an answer that is not a feed, or storing its items failed. */
export type FeedFailure = FetchErrorCode | 'not_a_feed' | 'store' | 'internal';

/** Why an address gave nothing to read: a failed fetch, a 410 Gone, or a 304 to a request that asked none. */
export type SourceFailure = FetchErrorCode | 'gone' | 'not_modified';

/**
 * What a refusal a person reads is about, as facts rather than words: the web words it in the reader's
 * language from these (src/http/web/refusals.ts), while the message stays the API's and the CLI's English.
 * Limits are the numbers the check used, never retyped in a sentence.
 */
export type RefusalFacts =
  | { reason: 'feeds_limit'; limit: number }
  | { reason: 'import_feeds_limit'; following: number; adding: number; limit: number }
  | { reason: 'opml_outlines_limit'; listed: number; limit: number }
  | { reason: 'feed_url_invalid' }
  | { reason: 'feed_url_too_long'; max: number }
  | { reason: 'filter_too_long'; max: number }
  | { reason: 'filter_invalid'; term: string }
  | { reason: 'search_too_long'; max: number }
  | { reason: 'search_too_many_terms'; max: number }
  | { reason: 'search_empty' }
  | { reason: 'search_only_excluded' }
  | { reason: 'cannot_disable_self' }
  | { reason: 'cannot_unadmin_self' }
  | { reason: 'last_admin' }
  | { reason: 'confirm_name' }
  | { reason: 'name_length'; max: number }
  | { reason: 'note_too_long'; max: number }
  | { reason: 'password_too_short'; min: number }
  | { reason: 'password_too_long'; maxBytes: number }
  | { reason: 'email_invalid'; email: string }
  | { reason: 'import_file_too_big'; megabytes: number }
  | { reason: 'import_too_many_links'; limit: number }
  | { reason: 'import_too_deep'; levels: number }
  | { reason: 'import_server_busy' }
  | { reason: 'import_waiting'; waiting: number }
  | { reason: 'import_too_slow'; seconds: number }
  | { reason: 'import_too_much_memory' }
  | { reason: 'zip_too_big'; megabytes: number }
  | { reason: 'zip_too_many_files'; limit: number }
  // A feed address that led to no feed (src/feeds/subscribe/discover.ts):
  | { reason: 'feed_address_missing' }
  | { reason: 'feed_address_invalid'; typed: string }
  | { reason: 'feed_search_slow'; url: string; seconds: number }
  /** The address itself could not be fetched; `status` is the HTTP status for http_status, else 0. */
  | { reason: 'feed_unreachable'; url: string; failure: SourceFailure; status: number }
  | { reason: 'feed_not_feed'; url: string }
  /** A web page: its `links` to feeds and the usual paths (`paths`) gave none that could be read. */
  | { reason: 'feed_none_found'; url: string; links: number; paths: string }
  /** A setting typed where an account is made (its time zone), refused as Settings would refuse it. */
  | { reason: 'setting_refused'; field: 'timezone'; refusal: SettingRefusal };

export class TidingsError extends Error {
  override name = 'TidingsError';
  /** The refusal's facts, for a transport that words it itself (the web); absent: only the message. */
  readonly facts: RefusalFacts | undefined;
  constructor(
    readonly kind: ErrorKind,
    message: string,
    options?: ErrorOptions & { facts?: RefusalFacts },
  ) {
    super(message, options);
    this.facts = options?.facts;
  }
}

export const isTidingsError = (err: unknown, kind?: ErrorKind): err is TidingsError =>
  err instanceof TidingsError && (kind === undefined || err.kind === kind);
