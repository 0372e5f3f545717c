#!/usr/bin/env node
import { dropOutputWhenClosed } from './closedOutput.js';
import { processIo } from './context.js';
import { runCli } from './run.js';

// One rule for every command: a closed stdout or stderr ends the printing, not the command.
for (const [stream, name] of [
  [process.stdout, 'standard output'],
  [process.stderr, 'standard error'],
] as const) {
  dropOutputWhenClosed(stream, (err) => {
    process.exitCode = 1;
    if (stream !== process.stderr) process.stderr.write(`tidings: cannot write to ${name}: ${err.message}\n`);
  });
}

const code = await runCli(process.argv.slice(2), processIo);
if (code !== 0) process.exitCode = code;
