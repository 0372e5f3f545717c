/** The CLI's command modules are loaded by the command named (issue 26): the table must match what each registers. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMAND_MODULES, buildProgram } from './program.js';

const io = { out: () => undefined, err: () => undefined, env: {} };

test('each command module registers exactly the commands it is loaded for, in the order of --help', async () => {
  const all = await buildProgram(io);
  assert.deepEqual(
    all.commands.map((c) => c.name()),
    COMMAND_MODULES.flat(),
  );
  for (const names of COMMAND_MODULES) {
    for (const name of names) {
      const one = await buildProgram(io, [name, '--help']);
      assert.deepEqual(
        one.commands.map((c) => c.name()),
        names,
      );
    }
  }
  const other = await buildProgram(io, ['--help']);
  assert.equal(other.commands.length, all.commands.length);
});
