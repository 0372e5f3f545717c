import type { Locale } from '../i18n/locale.js';

/**
 * commander's own refusals of a command line (an unknown option or command, a missing argument, one too
 * many) in the operator's language (issue 36). commander writes them in English from fixed templates
 * (node_modules/commander/lib/command.js: unknownOption, unknownCommand, missingArgument,
 * optionMissingArgument, missingMandatoryOptionValue, _excessArguments; option.js's choices): each is read
 * back here into its facts and worded by the catalogue (`cli.error.*`). English keeps commander's text as
 * it is; a line no template matches (a future commander's) stays as commander wrote it.
 */
export function commanderErrorWords(text: string, locale: Locale): string {
  if (locale.lang === 'en') return text;
  const [first = '', ...rest] = text.replace(/\n$/, '').split('\n');
  const words = lineWords(first, locale);
  if (words === null) return text;
  const suggestion =
    rest.length === 1 ? suggestionWords(rest[0] ?? '', locale) : rest.length === 0 ? '' : null;
  if (suggestion === null) return text;
  return `${words}${suggestion}\n`;
}

function lineWords(line: string, locale: Locale): string | null {
  let m = /^error: unknown option '(.+)'$/.exec(line);
  if (m?.[1] !== undefined) return locale.t('cli.error.unknownOption', { flag: m[1] });
  m = /^error: unknown command '(.+)'$/.exec(line);
  if (m?.[1] !== undefined) return locale.t('cli.error.unknownCommand', { name: m[1] });
  m = /^error: missing required argument '(.+)'$/.exec(line);
  if (m?.[1] !== undefined) return locale.t('cli.error.missingArgument', { name: m[1] });
  m = /^error: option '(.+)' argument missing$/.exec(line);
  if (m?.[1] !== undefined) return locale.t('cli.error.optionArgumentMissing', { flags: m[1] });
  m = /^error: required option '(.+)' not specified$/.exec(line);
  if (m?.[1] !== undefined) return locale.t('cli.error.requiredOption', { flags: m[1] });
  m = /^error: too many arguments(?: for '(.+)')?\. Expected (\d+) arguments? but got (\d+)\.$/.exec(line);
  if (m?.[2] !== undefined && m[3] !== undefined) {
    return locale.t('cli.error.tooManyArguments', {
      command: m[1] ?? 'none',
      expected: Number(m[2]),
      got: Number(m[3]),
    });
  }
  m = /^error: option '(.+)' argument '(.*)' is invalid\. Allowed choices are (.+)\.$/.exec(line);
  if (m?.[1] !== undefined && m[2] !== undefined && m[3] !== undefined) {
    return locale.t('cli.error.invalidChoice', { flags: m[1], value: m[2], choices: m[3] });
  }
  return null;
}

/** commander's suggestSimilar: "(Did you mean --days?)", "(Did you mean one of --a, --b?)". */
function suggestionWords(line: string, locale: Locale): string | null {
  const m = /^\(Did you mean (one of )?(.+)\?\)$/.exec(line);
  if (m?.[2] === undefined) return null;
  const candidates = m[2].split(', ');
  return `\n${locale.t('cli.error.didYouMean', { count: candidates.length, candidates: candidates.join(', ') })}`;
}
