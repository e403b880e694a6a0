import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tcpFrame, TcpFrames } from '@app/dns';

const first = Uint8Array.from([1, 2, 3]);
const second = Uint8Array.from({ length: 300 }, (_, i) => i % 256);

test('a frame is the message behind its length in two bytes, big-endian', () => {
  assert.deepEqual([...tcpFrame(second).subarray(0, 2)], [1, 44]);
  assert.deepEqual(new Uint8Array(tcpFrame(first)), Uint8Array.from([0, 3, 1, 2, 3]));
  assert.deepEqual(new Uint8Array(tcpFrame(new Uint8Array(0))), Uint8Array.from([0, 0]));
});

test('messages come out whole, however the stream cuts them', () => {
  const stream = Buffer.concat([tcpFrame(first), tcpFrame(second), tcpFrame(first)]);
  for (const size of [1, 2, 3, 7, 301, stream.length]) {
    const frames = new TcpFrames();
    const out: Uint8Array[] = [];
    for (let at = 0; at < stream.length; at += size) {
      frames.push(stream.subarray(at, at + size));
      out.push(...frames.takeAll());
    }
    assert.deepEqual(
      out.map((m) => [...m]),
      [[...first], [...second], [...first]],
      `chunks of ${size}`,
    );
  }
});

test('the announced length is known before the message has all come, so a reader can refuse it', () => {
  const frames = new TcpFrames();
  assert.equal(frames.nextLength(), undefined);
  frames.push(tcpFrame(second).subarray(0, 1));
  assert.equal(frames.nextLength(), undefined);
  frames.push(tcpFrame(second).subarray(1, 10));
  assert.equal(frames.nextLength(), 300);
  assert.equal(frames.next(), undefined);
  frames.push(tcpFrame(second).subarray(10));
  assert.deepEqual([...(frames.next() ?? [])], [...second]);
  assert.equal(frames.nextLength(), undefined);
});
