#!/usr/bin/env node
import { processIo } from './context.js';
import { runCli } from './run.js';

const code = await runCli(process.argv.slice(2), processIo);
if (code !== 0) process.exitCode = code;
