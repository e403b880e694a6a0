// Two server behaviours the worst-case scenarios rest on: a server whose every answer waits 2 s
// (`delay`), and servers that answer over TCP only (`udp: silent`). If either did nothing, the
// engine's worst-case lab test would time a zone that is not slow, or one that answers over UDP.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { RRType } from '@app/dns';
import { catalogueDir, parseScenarioText } from '../src/index.ts';
import { useLab } from '../src/testing.ts';

const shared = await useLab([join(catalogueDir, 'worst-case/slow.yaml'), join(catalogueDir, 'worst-case/tcp-only.yaml')], {
  latency: { minMs: 30, maxMs: 30 },
});

test('a delay that is not a duration is refused with the reason', () => {
  const server = (behaviour: string): string => `servers:\n  - name: ns1.x.test\n    addresses: [192.0.2.1]\n    behaviour: ${behaviour}\n`;
  assert.throws(() => parseScenarioText(server('{ delay: soon }'), 'x.yaml'), /not a duration/);
  assert.throws(() => parseScenarioText(server('{ udp: false }'), 'x.yaml'), /udp/);
  assert.equal(parseScenarioText(server('{ delay: 1-3s }'), 'x.yaml').servers[0]?.behaviour.delay, '1-3s');
});

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  return [await work(), performance.now() - started];
}

test(
  'delay: 2s makes every answer wait 2 s instead of the lab latency, over UDP and TCP; other servers keep the latency',
  { skip: shared.skip },
  async () => {
    for (const transport of ['udp', 'tcp'] as const) {
      const [slow, slowMs] = await timed(() =>
        shared.lab.query('ns1.slow.test', { name: 'slow.test', type: RRType.SOA }, { transport, timeoutMs: 5000, retries: 0 }),
      );
      assert.equal(slow.outcome, 'response', `over ${transport}`);
      assert.ok(slowMs >= 1990, `answered after ${slowMs.toFixed(0)} ms over ${transport}`);
      const [other, otherMs] = await timed(() =>
        shared.lab.query('ns1.nic.test', { name: 'test', type: RRType.SOA }, { transport, timeoutMs: 5000, retries: 0 }),
      );
      assert.equal(other.outcome, 'response');
      assert.ok(otherMs < 1500, `the TLD's server took ${otherMs.toFixed(0)} ms`);
    }
  },
);

test('udp: silent leaves UDP queries unanswered while TCP answers with authority', { skip: shared.skip }, async () => {
  const overUdp = await shared.lab.query(
    'ns1.tcp-only.test',
    { name: 'tcp-only.test', type: RRType.SOA },
    { transport: 'udp', timeoutMs: 1000, retries: 0 },
  );
  assert.equal(overUdp.outcome, 'timeout');
  const overTcp = await shared.lab.query(
    'ns1.tcp-only.test',
    { name: 'tcp-only.test', type: RRType.SOA },
    { transport: 'tcp', timeoutMs: 3000, retries: 0 },
  );
  assert.equal(overTcp.outcome, 'response');
  assert.ok(overTcp.outcome === 'response' && overTcp.message.aa);
});
