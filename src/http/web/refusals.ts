import type { RefusalFacts } from '../../errors.js';
import type { SettingRefusal } from '../../accounts/settingRefusals.js';
import type { Locale } from '../../i18n/locale.js';

/**
 * A refusal's facts (src/errors.ts RefusalFacts) in the reader's words: one message of the catalogue per
 * reason (`web.refusal.reason.*`), its numbers the limits the check used.
 */
export function refusalWords(facts: RefusalFacts, locale: Locale): string {
  switch (facts.reason) {
    case 'feeds_limit':
      return locale.t('web.refusal.reason.feeds_limit', { limit: facts.limit });
    case 'import_feeds_limit':
      return locale.t('web.refusal.reason.import_feeds_limit', {
        total: facts.following + facts.adding,
        following: facts.following,
        adding: facts.adding,
        limit: facts.limit,
      });
    case 'opml_outlines_limit':
      return locale.t('web.refusal.reason.opml_outlines_limit', { listed: facts.listed, limit: facts.limit });
    case 'feed_url_invalid':
      return locale.t('web.refusal.reason.feed_url_invalid');
    case 'feed_url_too_long':
      return locale.t('web.refusal.reason.feed_url_too_long', { max: facts.max });
    case 'filter_too_long':
      return locale.t('web.refusal.reason.filter_too_long', { max: facts.max });
    case 'filter_invalid':
      return locale.t('web.refusal.reason.filter_invalid', { term: facts.term });
    case 'search_too_long':
      return locale.t('web.refusal.reason.search_too_long', { max: facts.max });
    case 'search_too_many_terms':
      return locale.t('web.refusal.reason.search_too_many_terms', { max: facts.max });
    case 'search_empty':
      return locale.t('web.refusal.reason.search_empty');
    case 'search_only_excluded':
      return locale.t('web.refusal.reason.search_only_excluded');
    case 'cannot_disable_self':
      return locale.t('web.refusal.reason.cannot_disable_self');
    case 'cannot_unadmin_self':
      return locale.t('web.refusal.reason.cannot_unadmin_self');
    case 'last_admin':
      return locale.t('web.refusal.reason.last_admin');
    case 'confirm_name':
      return locale.t('web.refusal.reason.confirm_name');
    case 'name_length':
      return locale.t('web.refusal.reason.name_length', { max: facts.max });
    case 'note_too_long':
      return locale.t('web.refusal.reason.note_too_long', { max: facts.max });
    case 'password_too_short':
      return locale.t('web.refusal.reason.password_too_short', { min: facts.min });
    case 'password_too_long':
      return locale.t('web.refusal.reason.password_too_long', { max: facts.maxBytes });
    case 'email_invalid':
      return locale.t('web.refusal.reason.email_invalid', { email: facts.email });
    case 'import_file_too_big':
      return locale.t('web.refusal.reason.import_file_too_big', { megabytes: facts.megabytes });
    case 'import_too_many_links':
      return locale.t('web.refusal.reason.import_too_many_links', { limit: facts.limit });
    case 'import_too_deep':
      return locale.t('web.refusal.reason.import_too_deep', { levels: facts.levels });
    case 'import_server_busy':
      return locale.t('web.refusal.reason.import_server_busy');
    case 'import_waiting':
      return locale.t('web.refusal.reason.import_waiting', { waiting: facts.waiting });
    case 'import_too_slow':
      return locale.t('web.refusal.reason.import_too_slow', { seconds: facts.seconds });
    case 'import_too_much_memory':
      return locale.t('web.refusal.reason.import_too_much_memory');
    case 'zip_too_big':
      return locale.t('web.refusal.reason.zip_too_big', { megabytes: facts.megabytes });
    case 'zip_too_many_files':
      return locale.t('web.refusal.reason.zip_too_many_files', { limit: facts.limit });
    case 'feed_address_missing':
      return locale.t('web.refusal.reason.feed_address_missing');
    case 'feed_address_invalid':
      return locale.t('web.refusal.reason.feed_address_invalid', { typed: facts.typed });
    case 'feed_search_slow':
      return locale.t('web.refusal.reason.feed_search_slow', { url: facts.url, seconds: facts.seconds });
    case 'feed_unreachable':
      return locale.t('web.refusal.reason.feed_unreachable', {
        url: facts.url,
        failure: facts.failure,
        status: String(facts.status),
      });
    case 'feed_not_feed':
      return locale.t('web.refusal.reason.feed_not_feed', { url: facts.url });
    case 'setting_refused':
      return settingRefusalWords(facts.refusal, locale.t('web.settings.field.timezone'), locale);
    case 'feed_none_found':
      return locale.t('web.refusal.reason.feed_none_found', {
        url: facts.url,
        links: facts.links,
        paths: facts.paths,
      });
  }
}

/**
 * A refused setting (src/accounts/settingRefusals.ts) in the reader's words, after the field's label: one
 * message per reason (`web.settings.refusal.*`), what the person typed shown as typed.
 */
export function settingRefusalWords(facts: SettingRefusal, field: string, locale: Locale): string {
  switch (facts.reason) {
    case 'zone_ambiguous':
      return locale.t('web.settings.refusal.zone_ambiguous', {
        field,
        typed: facts.typed,
        zones: locale.list(facts.zones),
      });
    case 'zone_too_long':
    case 'number_too_large':
      return locale.t(`web.settings.refusal.${facts.reason}`, { field, max: facts.max });
    case 'number_too_small':
      return locale.t('web.settings.refusal.number_too_small', { field, min: facts.min });
    case 'number_out_of_range':
      return locale.t('web.settings.refusal.number_out_of_range', { field, min: facts.min, max: facts.max });
    case 'zone_unknown':
    case 'time_invalid':
    case 'days_invalid':
    case 'email_invalid':
    case 'order_invalid':
    case 'language_unknown':
    case 'flag_invalid':
      return locale.t(`web.settings.refusal.${facts.reason}`, { field, typed: facts.typed });
    case 'zone_empty':
    case 'days_empty':
    case 'not_whole_number':
    case 'language_code_too_long':
      return locale.t(`web.settings.refusal.${facts.reason}`, { field });
  }
}
