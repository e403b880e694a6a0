// Latency in the lab: every server waits before it answers, over UDP and TCP, and still answers
// what it would have answered without the wait (misbehaviours included).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rcode, RRType } from '@app/dns';
import { parseLatency } from '../src/index.ts';
import { useLab } from '../src/testing.ts';

test('latency is written as milliseconds, seconds or a range', () => {
  assert.deepEqual(parseLatency('50ms'), { minMs: 50, maxMs: 50 });
  assert.deepEqual(parseLatency('50'), { minMs: 50, maxMs: 50 });
  assert.deepEqual(parseLatency('0.1s'), { minMs: 100, maxMs: 100 });
  assert.deepEqual(parseLatency('20-80ms'), { minMs: 20, maxMs: 80 });
  assert.deepEqual(parseLatency('20ms-80ms'), { minMs: 20, maxMs: 80 });
  for (const bad of ['', 'fast', '-5ms', '80-20ms', '5 minutes']) assert.throws(() => parseLatency(bad), /not a duration|upper bound/, bad);
});

const shared = await useLab(['healthy-signed', 'no-tcp'], { latency: { minMs: 80, maxMs: 80 } });

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

test('every server answers after the delay, over UDP and over TCP', { skip: shared.skip }, async () => {
  for (const transport of ['udp', 'tcp'] as const) {
    for (const server of ['ns1.healthy.test', 'ns1.nic.test']) {
      const [result, ms] = await timed(() =>
        shared.lab.query(server, { name: 'healthy.test', type: RRType.SOA }, { transport, timeoutMs: 3000, retries: 0 }),
      );
      assert.equal(result.outcome, 'response', `${server} over ${transport}`);
      assert.ok(ms >= 78, `${server} over ${transport} answered after ${ms.toFixed(1)} ms, before the 80 ms delay`);
      assert.ok(ms < 1500, `${server} over ${transport} took ${ms.toFixed(1)} ms`);
      if (result.outcome === 'response' && server === 'ns1.healthy.test') {
        assert.equal(result.message.rcode, Rcode.NOERROR);
        assert.ok(result.message.aa, "the zone's own server still answers with authority");
      }
    }
  }
});

test('a server that refuses TCP still refuses it with latency on', { skip: shared.skip }, async () => {
  const viaTcp = await shared.lab.query(
    'ns2.notcp.test',
    { name: 'notcp.test', type: RRType.SOA },
    { transport: 'tcp', timeoutMs: 1000, retries: 0 },
  );
  assert.notEqual(viaTcp.outcome, 'response');
  const viaUdp = await shared.lab.query('ns2.notcp.test', { name: 'notcp.test', type: RRType.SOA }, { timeoutMs: 2000, retries: 0 });
  assert.equal(viaUdp.outcome, 'response');
});
