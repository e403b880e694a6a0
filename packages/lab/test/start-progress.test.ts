// A lab's start says what it is doing as it goes: a first build of the demo's world takes minutes on a
// slow machine, and silence for that long reads as a hang.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { labUnavailableReason, loadScenario, startLab } from '../src/index.ts';

const skip = (await labUnavailableReason()) ?? false;

test('a start without cached zones tells each step, and how far reading and signing got, in order', { skip }, async () => {
  const lines: string[] = [];
  const lab = await startLab(['healthy-signed', 'wrong-ds'], { cache: false, onProgress: (line) => lines.push(line) });
  await lab.stop();
  const world = loadScenario(['healthy-signed', 'wrong-ds']);
  const zones = world.zones.length;
  const signed = world.zones.filter((z) => z.dnssec?.signed === true).length;
  const at = (pattern: RegExp): number => lines.findIndex((line) => pattern.test(line));
  const steps = [
    new RegExp(`^building ${zones} zones \\(${signed} signed\\)`),
    new RegExp(`^zones read: ${zones}/${zones}$`),
    new RegExp(`^zones signed: ${signed}/${signed}$`),
    /^starting the name servers: \d+ servers/,
  ];
  const positions = steps.map(at);
  assert.ok(
    positions.every((p) => p >= 0),
    `every step is told:\n${lines.join('\n')}`,
  );
  assert.deepEqual(
    positions,
    [...positions].sort((a, b) => a - b),
    `in order:\n${lines.join('\n')}`,
  );
  // By tenths at most, so a world of hundreds of zones does not print hundreds of lines.
  assert.ok(lines.filter((line) => line.startsWith('zones read: ')).length <= 11);
});

test('a start that reuses built zones says so', { skip }, async () => {
  await (await startLab(['single-nameserver'])).stop();
  const lines: string[] = [];
  const lab = await startLab(['single-nameserver'], { onProgress: (line) => lines.push(line) });
  await lab.stop();
  assert.match(lines[0] ?? '', /^zones built earlier reused /);
  assert.ok(!lines.some((line) => line.startsWith('building ')), lines.join('\n'));
});
