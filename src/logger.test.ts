import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from './logger.js';

test('log lines never carry API keys or the SMTP URL', () => {
  const lines: string[] = [];
  const logger = createLogger('info', { write: (line: string) => lines.push(line) });
  logger.info(
    { apiKey: 'tdg_secret', config: { smtpUrl: 'smtp://u:hunter2@mail.example', api_key: 'tdg_other' } },
    'started',
  );
  logger.info({ smtpUrl: 'smtps://u:hunter2@mail.example' }, 'mail');
  const out = lines.join('');
  assert.doesNotMatch(out, /hunter2|tdg_/);
  assert.equal((out.match(/\[redacted\]/g) ?? []).length, 4);
});
