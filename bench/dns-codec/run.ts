// Decode and encode throughput of our codec against dns-packet on the same responses, same run.
import dnsPacket from 'dns-packet';
import { decodeMessage, encodeMessage } from '@app/dns';
import { responses } from './responses.ts';

const buffers = responses.map((r) => Buffer.from(r));
const ours = responses.map((r) => decodeMessage(r));
const theirs = buffers.map((b) => dnsPacket.decode(b));

function opsPerSecond(work: () => void, seconds = Number(process.env.BENCH_SECONDS ?? 1.5)): number {
  for (let i = 0; i < 200; i++) work(); // warm up
  let rounds = 0;
  const started = process.hrtime.bigint();
  const budget = BigInt(Math.round(seconds * 1e9));
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let i = 0; i < 100; i++) work();
    rounds += 100;
    elapsed = process.hrtime.bigint() - started;
  }
  // One op = one message.
  return (rounds * responses.length) / (Number(elapsed) / 1e9);
}

let sink = 0;
const results = [
  ['decode', opsPerSecond(() => { for (const r of responses) sink += decodeMessage(r).answer.length; }),
    opsPerSecond(() => { for (const b of buffers) sink += dnsPacket.decode(b).answers!.length; })],
  ['encode', opsPerSecond(() => { for (const m of ours) sink += encodeMessage(m).length; }),
    opsPerSecond(() => { for (const p of theirs) sink += dnsPacket.encode(p).length; })],
] as const;

const avgBytes = responses.reduce((s, r) => s + r.length, 0) / responses.length;
console.log(`dns-codec: ${responses.length} responses, ${avgBytes.toFixed(0)} bytes on average (sink ${sink % 10})`);
for (const [what, mine, peer] of results) {
  console.log(`${what.padEnd(7)} @app/dns ${Math.round(mine).toLocaleString('en')} msg/s   dns-packet ${Math.round(peer).toLocaleString('en')} msg/s   ratio ${(mine / peer).toFixed(2)}x`);
}
