import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

test('defaults: 127.0.0.1:8080, ./data/tidings.db, workers on', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.databaseUrl, './data/tidings.db');
  assert.equal(c.worker, true);
  assert.equal(c.baseUrl, 'http://127.0.0.1:8080');
  assert.equal(c.logLevel, 'info');
});

test('environment values are parsed and checked', () => {
  const c = loadConfig({
    PORT: '9000',
    HOST: '::1',
    TIDINGS_WORKER: 'false',
    LOG_LEVEL: 'warn',
    UNRELATED: 'x',
  });
  assert.equal(c.port, 9000);
  assert.equal(c.worker, false);
  assert.equal(c.baseUrl, 'http://[::1]:9000');
  assert.equal(loadConfig({ TIDINGS_BASE_URL: 'https://news.example/' }).baseUrl, 'https://news.example');
  assert.throws(
    () => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /PORT/);
      assert.match(err.message, /LOG_LEVEL/);
      return true;
    },
  );
  assert.throws(() => loadConfig({ TIDINGS_WORKER: 'maybe' }), ConfigError);
});
