import assert from 'node:assert/strict';
import { after, before } from 'node:test';

/**
 * Collects what is thrown outside any request (uncaught exceptions, unhandled rejections) while a test
 * file runs, and fails the file at its end if anything was. Returns the list, for a test that checks a
 * single request's aftermath.
 */
export function failOnStrayErrors(): unknown[] {
  const crashes: unknown[] = [];
  const onCrash = (err: unknown): void => {
    crashes.push(err);
  };
  before(() => {
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
  });
  after(() => {
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    assert.deepEqual(crashes, [], 'nothing was thrown outside a request');
  });
  return crashes;
}
