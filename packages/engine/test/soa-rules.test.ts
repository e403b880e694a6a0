// SOA timers against the profile's thresholds (Zone-TP zone02–zone06) on both sides of each limit, and
// serial order (zone01) across the wrap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultProfile, loadProfile } from '../src/profile/profile.ts';
import {
  expireMessages,
  minimumMessages,
  refreshMessages,
  refreshRetryMessages,
  retryMessages,
  serialGreater,
  timerThresholds,
  type SoaTimers,
} from '../src/rules/soa.ts';

const limits = timerThresholds(defaultProfile());
const soa = (timers: Partial<SoaTimers>): SoaTimers => ({ refresh: 14400, retry: 3600, expire: 604800, minimum: 300, ...timers });
const tags = (messages: { tag: string }[]): string[] => messages.map((m) => m.tag);

test("the default profile's thresholds are the reference's", () => {
  assert.deepEqual(limits, { refreshMinimum: 14400, retryMinimum: 3600, expireMinimum: 604800, ttlMaximum: 86400, ttlMinimum: 300 });
});

test('refresh: 14400 is enough, one second less is not', () => {
  assert.deepEqual(refreshMessages(soa({ refresh: 14400 }), limits), [
    { tag: 'REFRESH_MINIMUM_VALUE_OK', args: { refresh: 14400, required_refresh: 14400 } },
  ]);
  assert.deepEqual(refreshMessages(soa({ refresh: 14399 }), limits), [
    { tag: 'REFRESH_MINIMUM_VALUE_LOWER', args: { refresh: 14399, required_refresh: 14400 } },
  ]);
});

test('refresh must be above retry: equal counts as too low', () => {
  assert.deepEqual(tags(refreshRetryMessages(soa({ refresh: 3601, retry: 3600 }))), ['REFRESH_HIGHER_THAN_RETRY']);
  assert.deepEqual(refreshRetryMessages(soa({ refresh: 3600, retry: 3600 })), [
    { tag: 'REFRESH_LOWER_THAN_RETRY', args: { retry: 3600, refresh: 3600 } },
  ]);
  assert.deepEqual(tags(refreshRetryMessages(soa({ refresh: 1200, retry: 1800 }))), ['REFRESH_LOWER_THAN_RETRY']);
});

test('retry: 3600 is enough, 3599 is not', () => {
  assert.deepEqual(tags(retryMessages(soa({ retry: 3600 }), limits)), ['RETRY_MINIMUM_VALUE_OK']);
  assert.deepEqual(retryMessages(soa({ retry: 3599 }), limits), [
    { tag: 'RETRY_MINIMUM_VALUE_LOWER', args: { retry: 3599, required_retry: 3600 } },
  ]);
});

test('expire: at least 604800 and not below refresh; both faults at once; OK names all three values', () => {
  assert.deepEqual(expireMessages(soa({ expire: 604800 }), limits), [
    { tag: 'EXPIRE_MINIMUM_VALUE_OK', args: { expire: 604800, refresh: 14400, required_expire: 604800 } },
  ]);
  assert.deepEqual(tags(expireMessages(soa({ expire: 604799 }), limits)), ['EXPIRE_MINIMUM_VALUE_LOWER']);
  assert.deepEqual(tags(expireMessages(soa({ expire: 604800, refresh: 604801 }), limits)), ['EXPIRE_LOWER_THAN_REFRESH']);
  assert.deepEqual(
    tags(expireMessages(soa({ expire: 604800, refresh: 604800 }), limits)),
    ['EXPIRE_MINIMUM_VALUE_OK'],
    'equal to refresh is fine',
  );
  assert.deepEqual(tags(expireMessages(soa({ expire: 3000, refresh: 3600 }), limits)), [
    'EXPIRE_MINIMUM_VALUE_LOWER',
    'EXPIRE_LOWER_THAN_REFRESH',
  ]);
});

test('minimum: 300 to 86400 inclusive', () => {
  assert.deepEqual(tags(minimumMessages(soa({ minimum: 299 }), limits)), ['SOA_DEFAULT_TTL_MAXIMUM_VALUE_LOWER']);
  assert.deepEqual(minimumMessages(soa({ minimum: 300 }), limits), [
    { tag: 'SOA_DEFAULT_TTL_MAXIMUM_VALUE_OK', args: { minimum: 300, highest_minimum: 86400, lowest_minimum: 300 } },
  ]);
  assert.deepEqual(tags(minimumMessages(soa({ minimum: 86400 }), limits)), ['SOA_DEFAULT_TTL_MAXIMUM_VALUE_OK']);
  assert.deepEqual(minimumMessages(soa({ minimum: 86401 }), limits), [
    { tag: 'SOA_DEFAULT_TTL_MAXIMUM_VALUE_HIGHER', args: { minimum: 86401, highest_minimum: 86400 } },
  ]);
});

test("a profile's test_cases_vars move the limits", () => {
  const strict = timerThresholds(
    loadProfile({ test_cases_vars: { zone02: { SOA_REFRESH_MINIMUM_VALUE: 20000 }, zone06: { SOA_DEFAULT_TTL_MINIMUM_VALUE: 600 } } }),
  );
  assert.deepEqual(tags(refreshMessages(soa({ refresh: 14400 }), strict)), ['REFRESH_MINIMUM_VALUE_LOWER']);
  assert.deepEqual(tags(minimumMessages(soa({ minimum: 300 }), strict)), ['SOA_DEFAULT_TTL_MAXIMUM_VALUE_LOWER']);
  assert.equal(strict.retryMinimum, 3600, 'the others keep their defaults');
});

test('serials compare in RFC 1982 arithmetic: across the wrap, and half the space apart is neither', () => {
  assert.ok(serialGreater(2024010102, 2024010101));
  assert.ok(!serialGreater(2024010101, 2024010101));
  assert.ok(serialGreater(1, 0xffffffff), '1 follows 4294967295');
  assert.ok(!serialGreater(0xffffffff, 1));
  assert.ok(serialGreater(2 ** 31 - 1, 0));
  assert.ok(!serialGreater(2 ** 31, 0) && !serialGreater(0, 2 ** 31));
});
