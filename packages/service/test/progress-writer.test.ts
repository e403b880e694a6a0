// A running test's progress: written at once, then at most once per interval with the latest value,
// and nothing more once the results are being stored.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ProgressWriter } from '../src/agent/progress-writer.ts';

test('a report per percent becomes a write per interval, the latest value last', async () => {
  const written: number[] = [];
  const writer = new ProgressWriter(async (percent) => {
    written.push(percent);
    await delay(5);
  }, 100);
  for (let percent = 2; percent <= 60; percent++) writer.report(percent);
  await delay(20);
  assert.deepEqual(written, [2], 'the first report is written at once, the rest wait for the interval');
  await delay(400);
  assert.deepEqual(written, [2, 60]);
  writer.report(30);
  await delay(400);
  assert.deepEqual(written, [2, 60], 'never backwards');
});

test('idle() drops a write still waiting and waits for the one in flight', async () => {
  const written: number[] = [];
  let finished = false;
  const writer = new ProgressWriter(async (percent) => {
    written.push(percent);
    await delay(30);
    finished = true;
  }, 100);
  writer.report(10);
  writer.report(50);
  await writer.idle();
  assert.ok(finished, 'the write in flight ended first');
  writer.report(90);
  await delay(400);
  assert.deepEqual(written, [10]);
});

test('a failed write is tried again with the latest value after the interval', async () => {
  const written: number[] = [];
  let fail = true;
  const writer = new ProgressWriter(async (percent) => {
    if (fail) {
      fail = false;
      throw new Error('database away');
    }
    written.push(percent);
    await Promise.resolve();
  }, 50);
  writer.report(10);
  writer.report(20);
  await delay(400);
  assert.deepEqual(written, [20]);
  await writer.idle();
});
