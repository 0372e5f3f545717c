import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Command } from 'commander';
import { setOperatorLanguage } from '../i18n/locale.js';
import { englishWordsOf } from '../test/englishWords.js';
import { buildProgram } from './program.js';
import { runCli } from './run.js';

/**
 * Issue 36 point 1: `--help` is in the operator's language (TIDINGS_LANGUAGE), commander's own words
 * (headings, `[options]`, "default:") included. In the pseudo-locale en-XA no command's help has an
 * English word left once what the operator types is taken out: command names, flags, metavariables and
 * argument names, JSON field names and the values commander quotes. In English it stays as it was.
 */

async function helpOf(language: string, args: readonly string[]): Promise<string[]> {
  const lines: string[] = [];
  const code = await runCli([...args, '--help'], {
    out: (l) => lines.push(l),
    err: (l) => lines.push(l),
    env: { TIDINGS_LANGUAGE: language },
  });
  assert.equal(code, 0, `${args.join(' ')} --help: ${lines.join('\n')}`);
  // commander writes the help as one text.
  return lines.flatMap((l) => l.split('\n'));
}

/** Every command's path (`[]` is the program), and the names an operator types: commands, arguments. */
async function commandsAndNames(): Promise<{ paths: string[][]; names: string[] }> {
  const program = await buildProgram({ out: () => undefined, err: () => undefined, env: {} });
  const paths: string[][] = [[]];
  const names = new Set<string>(['tidings', 'help', 'command']);
  const walk = (command: Command, path: readonly string[]): void => {
    for (const a of command.registeredArguments) names.add(a.name());
    for (const sub of command.commands) {
      names.add(sub.name());
      paths.push([...path, sub.name()]);
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(program, []);
  return { paths, names: [...names] };
}

/** The words of a help text, with what the operator types or copies taken out. */
function wordsOf(lines: readonly string[], names: readonly string[]): string[] {
  let text = lines
    .join('\n')
    // Flags, metavariables, environment variables, the values commander quotes ("UTC", "auto").
    .replace(/(?<![\p{L}\w])--?[a-z][a-z-]*/gu, ' ')
    .replace(/<[^>\s]+>/g, ' ')
    .replace(/\b[A-Z][A-Z0-9_]+(?:=[a-z]+)?\b/g, ' ')
    .replace(/"[A-Za-z0-9]+"/g, ' ');
  // JSON shapes ({"id", "apiKey"}, nested {"items": [{…}]}), innermost first.
  for (let before = ''; before !== text;) {
    before = text;
    text = text.replace(/\{[^{}]*\}/g, ' ');
  }
  // Command and argument names as whole words ("id" is not taken out of "tidings").
  const typed = new RegExp(`(?<![\\w-])(?:${names.join('|')})(?![\\w-])`, 'g');
  return englishWordsOf(text.replace(typed, ' '));
}

after(() => setOperatorLanguage('en'));

test('en-XA: the help of the program and of every command has no English word', async () => {
  const { paths, names } = await commandsAndNames();
  assert.ok(paths.length > 40, `${paths.length} commands`);
  for (const path of paths) {
    const lines = await helpOf('en-XA', path);
    assert.deepEqual(
      wordsOf(lines, names),
      [],
      `${['tidings', ...path].join(' ')} --help:\n${lines.join('\n')}`,
    );
  }
  // The help command's own listing, and the hint after a usage error.
  const listed = await helpOf('en-XA', ['help', 'account']);
  assert.deepEqual(wordsOf(listed, names), [], listed.join('\n'));
  const errors: string[] = [];
  await runCli(['account', 'create'], {
    out: () => undefined,
    err: (l) => errors.push(l),
    env: { TIDINGS_LANGUAGE: 'en-XA' },
  });
  assert.match(
    errors.at(-1) ?? '',
    /^\(ååðð --help ƒööŕ ååððîîţîîööñååļ îîñƒööŕɱååţîîööñ\)$/,
    errors.join('\n'),
  );
});

test('English: the help is as it was, commander’s words and all', async () => {
  const top = await helpOf('en', []);
  assert.equal(top[0], 'Usage: tidings [options] [command]');
  assert.ok(top.includes('Commands:'));
  assert.ok(top.some((l) => /^ {2}-h, --help +display help for command$/.test(l)));
  assert.ok(top.some((l) => /^ {2}-V, --version +output the version number$/.test(l)));
  const create = (await helpOf('en', ['account', 'create'])).join('\n');
  assert.match(create, /^Usage: tidings account create \[options\]$/m);
  assert.match(
    create,
    /--timezone <zone> +time zone of the reader: a city \(Berlin, "New York"\) or an\s+IANA name \(default: "UTC"\)/,
  );
  assert.match(create, /--json +print exactly one JSON line \{"id", "apiKey"\}/);
  const imports = (await helpOf('en', ['import'])).join('\n');
  assert.match(imports, /^Arguments:$/m);
  assert.match(imports, /\(choices:\s+"auto",\s+"pocket",/);
});

test('a real language: German headings and labels, the JSON shape and values as typed', async () => {
  const help = (await helpOf('de', ['key', 'create'])).join('\n');
  assert.match(help, /^Aufruf: tidings key create \[Optionen\]$/m);
  assert.match(help, /^Optionen:$/m);
  assert.match(
    help,
    /--name <name>\s+eine Bezeichnung, an der man den Schlüssel erkennt \(Standard:\s+"key"\)/,
  );
  assert.match(help, /genau eine JSON-Zeile \{"id", "apiKey"\} ausgeben/);
  // A code Tidings does not speak: English help (the command itself reports the setting).
  const unknown = await helpOf('xx', []);
  assert.equal(unknown[0], 'Usage: tidings [options] [command]');
});
