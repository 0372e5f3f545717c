#!/usr/bin/env node
import { dropOutputWhenClosed } from './closedOutput.js';
import { localeOf } from '../i18n/locale.js';
import { processIo } from './context.js';
import { runCli } from './run.js';

// One rule for every command: a closed stdout or stderr ends the printing, not the command.
for (const [stream, name] of [
  [process.stdout, 'stdout'],
  [process.stderr, 'stderr'],
] as const) {
  dropOutputWhenClosed(stream, (err) => {
    process.exitCode = 1;
    const said = () => localeOf(null).t('cli.error.cannotWrite', { stream: name, reason: err.message });
    if (stream !== process.stderr) process.stderr.write(`tidings: ${said()}\n`);
  });
}

const code = await runCli(process.argv.slice(2), processIo);
if (code !== 0) process.exitCode = code;
