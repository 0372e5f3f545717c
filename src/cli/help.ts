import type { Argument, Command, HelpConfiguration, Option } from 'commander';
import { ConfigError } from '../config.js';
import { type Locale, localeOf, setOperatorLanguage } from '../i18n/locale.js';
import { commanderErrorWords } from './commanderErrors.js';

/**
 * The language of `--help` (issue 36): the operator's, TIDINGS_LANGUAGE, set before the commands are
 * defined so that each command's texts (`localeOf(null)`) are written in it. A code Tidings does not speak
 * gives English here; the command itself reports it when it loads the configuration.
 */
export function helpLocale(env: NodeJS.ProcessEnv): Locale {
  try {
    setOperatorLanguage(env.TIDINGS_LANGUAGE ?? 'en');
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    setOperatorLanguage('en');
  }
  return localeOf(null);
}

/**
 * commander's own words in `help`'s language: the headings, the usage line's `[options]` and `[command]`,
 * the help and version options, its refusals of a command line (commanderErrors.ts), the hint after an
 * error and the "default:"/"choices:" of an option. Subcommands made after this inherit it.
 */
export function translateCommander(program: Command, help: Locale): Command {
  const headings: Record<string, string> = {
    'Usage:': help.t('cli.help.heading.usage'),
    'Arguments:': help.t('cli.help.heading.arguments'),
    'Options:': help.t('cli.help.heading.options'),
    'Global Options:': help.t('cli.help.heading.globalOptions'),
    'Commands:': help.t('cli.help.heading.commands'),
  };
  const usageWords: Record<string, string> = {
    '[options]': `[${help.t('cli.help.usage.options')}]`,
    '[command]': `[${help.t('cli.help.usage.command')}]`,
  };
  const usage = (line: string): string =>
    line
      .split(' ')
      .map((word) => usageWords[word] ?? word)
      .join(' ');
  const configuration: HelpConfiguration = {
    styleTitle: (title) => headings[title] ?? title,
    styleUsage: usage,
    styleSubcommandTerm: usage,
    optionDescription: (option) => described(help, option.description, optionFacts(help, option)),
    argumentDescription: (argument) => described(help, argument.description, argumentFacts(help, argument)),
  };
  return program
    .configureHelp(configuration)
    .helpOption('-h, --help', help.t('cli.help.helpOption'))
    .helpCommand('help [command]', help.t('cli.help.helpOption'))
    .showHelpAfterError(help.t('cli.help.afterError', { flag: '--help' }))
    .configureOutput({ outputError: (text, write) => write(commanderErrorWords(text, help)) });
}

/** "name (default: "UTC")": the description and its facts in parentheses, as commander writes them. */
function described(help: Locale, description: string, facts: readonly string[]): string {
  if (facts.length === 0) return description;
  const list = help.t('cli.help.facts', { facts: facts.join(help.t('cli.help.factSeparator')) });
  return description === '' ? list : `${description} ${list}`;
}

const shown = (value: unknown): string => JSON.stringify(value);

/** commander's optionDescription's facts (choices, default, preset, environment variable), in words. */
function optionFacts(help: Locale, option: Option): string[] {
  const facts: string[] = [];
  if (option.argChoices !== undefined) {
    facts.push(help.t('cli.help.choices', { values: option.argChoices.map(shown).join(', ') }));
  }
  const showDefault =
    option.required || option.optional || (option.isBoolean() && typeof option.defaultValue === 'boolean');
  if (option.defaultValue !== undefined && showDefault) {
    facts.push(
      help.t('cli.help.default', { value: option.defaultValueDescription ?? shown(option.defaultValue) }),
    );
  }
  if (option.presetArg !== undefined && option.optional) {
    facts.push(help.t('cli.help.preset', { value: shown(option.presetArg) }));
  }
  if (option.envVar !== undefined) facts.push(help.t('cli.help.env', { name: option.envVar }));
  return facts;
}

function argumentFacts(help: Locale, argument: Argument): string[] {
  const facts: string[] = [];
  if (argument.argChoices !== undefined) {
    facts.push(help.t('cli.help.choices', { values: argument.argChoices.map(shown).join(', ') }));
  }
  if (argument.defaultValue !== undefined) {
    const value = argument.defaultValueDescription ?? shown(argument.defaultValue);
    facts.push(help.t('cli.help.default', { value }));
  }
  return facts;
}
