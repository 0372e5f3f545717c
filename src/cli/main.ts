#!/usr/bin/env node
import { ConfigError } from '../config.js';
import { processIo, UsageError } from './context.js';
import { buildProgram } from './program.js';

try {
  await buildProgram(processIo).parseAsync(process.argv);
} catch (err) {
  if (err instanceof UsageError || err instanceof ConfigError) {
    processIo.err(`tidings: ${err.message}`);
    process.exitCode = err instanceof UsageError ? err.exitCode : 2;
  } else {
    processIo.err(`tidings: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  }
}
