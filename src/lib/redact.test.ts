import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrl } from './redact.js';

test('API keys are redacted from URLs however they are spelled', () => {
  assert.equal(redactUrl('/api/v1/articles?apiKey=tdg_secret'), '/api/v1/articles?apiKey=[redacted]');
  assert.equal(redactUrl('/api?x=1&api_key=tdg_secret&y=2'), '/api?x=1&api_key=[redacted]&y=2');
  assert.equal(redactUrl('/api?api%5Fkey=tdg_secret'), '/api?api%5Fkey=[redacted]');
  assert.equal(redactUrl('/api?APIKEY=tdg_secret&apikey=s2'), '/api?APIKEY=[redacted]&apikey=[redacted]');
  assert.equal(redactUrl('/api?api_key'), '/api?api_key=[redacted]');
  assert.equal(redactUrl('/healthz'), '/healthz');
  assert.equal(redactUrl('/api?q=%E0%A4'), '/api?q=%E0%A4');
});

test('digest tokens are redacted from URLs however they are spelled', () => {
  assert.equal(redactUrl('/digests/12?token=s3cr3t'), '/digests/12?token=[redacted]');
  assert.equal(redactUrl('/digests.atom?x=1&TOKEN=s3cr3t&y=2'), '/digests.atom?x=1&TOKEN=[redacted]&y=2');
  assert.equal(
    redactUrl('/digests.atom?to%6Ben=s3cr3t&token=again'),
    '/digests.atom?to%6Ben=[redacted]&token=[redacted]',
  );
  assert.equal(redactUrl('/digests.atom?+token+=s3cr3t'), '/digests.atom?+token+=[redacted]');
  assert.equal(redactUrl('/digests.atom?tokens=kept'), '/digests.atom?tokens=kept');
});
