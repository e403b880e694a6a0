// What counts as "the database cannot be reached" (503 with Retry-After) rather than a failure of the store (500).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isUnavailableDatabase } from '../src/db/unavailable-database.ts';

const withCode = (fields: Record<string, unknown>, message = 'x') => Object.assign(new Error(message), fields);

test('refused, reset and dropped connections, and servers shutting down or starting, are unavailability', () => {
  for (const error of [
    withCode({ code: 'ECONNREFUSED' }),
    new AggregateError([withCode({ code: 'ECONNREFUSED' }), withCode({ code: 'ECONNREFUSED' })]),
    withCode({ code: 'ECONNRESET' }),
    withCode({ code: '57P01' }, 'terminating connection due to administrator command'),
    withCode({ code: '57P03' }, 'the database system is starting up'),
    withCode({ code: '25006' }, 'cannot execute INSERT in a read-only transaction'),
    withCode({ code: '08006' }),
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
    withCode({ code: 'PROTOCOL_CONNECTION_LOST' }),
    withCode({ errno: 2013 }, 'Lost connection to server during query'),
    withCode({ errno: 1053 }, 'Server shutdown in progress'),
  ]) {
    assert.equal(isUnavailableDatabase(error), true, String(error));
  }
});

test('the store’s own failures and the client’s are not', () => {
  for (const error of [
    new Error('boom'),
    withCode({ code: '23505' }, 'duplicate key value violates unique constraint'),
    withCode({ code: '42703' }, 'column "x" does not exist'),
    withCode({ errno: 1062 }, 'Duplicate entry'),
    withCode({ code: 'ERR_SQLITE_ERROR', errcode: 19 }),
    undefined,
    'ECONNREFUSED',
  ]) {
    assert.equal(isUnavailableDatabase(error), false, String(error));
  }
});
