// The webhook soak's verdicts (scripts/soak/webhook-checks.ts) on arrivals made up to break each rule once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { soakFigures, type Write } from '../../scripts/soak/webhook-checks.ts';
import type { Arrival } from '../../scripts/soak/webhook-receiver.ts';

const arrival = (itemNumber: string, webhookId: string, at: number, path = '/s1'): Arrival => ({ path, webhookId, itemNumber, at });

// a was answered (10) before b began (20); c ran alongside b.
const writes = new Map<string, Write>([
  ['a', { start: 0, ack: 10 }],
  ['b', { start: 20, ack: 30 }],
  ['c', { start: 25, ack: 35 }],
]);
const produced = new Map([
  ['a', 1],
  ['b', 2],
  ['c', 3],
]);

test('in order, each once: nothing to report; latency from each answer', () => {
  const figures = soakFigures(['/s1'], produced, writes, [arrival('a', '1', 15), arrival('c', '3', 40), arrival('b', '2', 41)], {});
  assert.deepEqual(figures.subscriptions, [
    { path: '/s1', produced: 3, lost: 0, outOfOrder: 0, otherThanLog: 1, duplicatedWithoutSameId: 0, repeatsOfSameId: 0 },
  ]);
  assert.equal(figures.latency.count, 3);
  assert.equal(figures.latency.max, 11);
});

test('an event before one that happened before it, an event lost, one under two ids, one repeated', () => {
  const figures = soakFigures(
    ['/s1', '/s2'],
    produced,
    writes,
    [
      arrival('b', '2', 40),
      arrival('a', '1', 41),
      arrival('c', '3', 42),
      arrival('c', '3', 43),
      arrival('a', '1', 44, '/s2'),
      arrival('b', '2', 45, '/s2'),
      arrival('b', '9', 46, '/s2'),
    ],
    {},
  );
  const [s1, s2] = figures.subscriptions;
  assert.equal(s1?.outOfOrder, 1);
  assert.equal(s1?.repeatsOfSameId, 1);
  assert.equal(s2?.lost, 1);
  assert.equal(s2?.duplicatedWithoutSameId, 1);
  assert.equal(figures.latency.max, Infinity);
});

test('the backlog after an outage is timed from the receiver coming back', () => {
  const figures = soakFigures(['/s1'], produced, writes, [arrival('a', '1', 11), arrival('b', '2', 100), arrival('c', '3', 130)], {
    downAt: 32,
    upAt: 90,
  });
  assert.equal(figures.backlogGoneMs, 40);
});
