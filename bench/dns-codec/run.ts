// Decode and encode throughput of our codec against dns-packet on the same responses, same run.
import dnsPacket from 'dns-packet';
import { decodeMessage, encodeMessage } from '@app/dns';
import { responses } from './responses.ts';

const buffers = responses.map((r) => Buffer.from(r));
const ours = responses.map((r) => decodeMessage(r));
const theirs = buffers.map((b) => dnsPacket.decode(b));

// The machine is shared, so both sides are timed in CPU time, in alternating slices: a burst of
// load or a frequency change then falls on both alike, and the in-run ratio stays fair.
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Messages per CPU second of `mine` and of `theirs` (one op = one message), sliced alternately. */
function compare(mine: () => void, theirs: () => void, seconds = Number(process.env.BENCH_SECONDS ?? 1.5)): [number, number] {
  for (let i = 0; i < 200; i++) {
    mine(); // warm up
    theirs();
  }
  const slices = 20;
  const sliceMs = (seconds * 1000) / slices;
  const totals = [
    { work: mine, rounds: 0, ms: 0 },
    { work: theirs, rounds: 0, ms: 0 },
  ];
  for (let slice = 0; slice < slices; slice++) {
    for (const side of slice % 2 === 0 ? totals : [...totals].reverse()) {
      const started = cpuMs();
      let spent = 0;
      while (spent < sliceMs) {
        for (let i = 0; i < 20; i++) side.work();
        side.rounds += 20;
        spent = cpuMs() - started;
      }
      side.ms += spent;
    }
  }
  const rate = (side: (typeof totals)[number]): number => (side.rounds * responses.length) / (side.ms / 1000);
  return [rate(totals[0]), rate(totals[1])];
}

let sink = 0;
const results = [
  [
    'decode',
    ...compare(
      () => {
        for (const r of responses) sink += decodeMessage(r).answer.length;
      },
      () => {
        for (const b of buffers) sink += dnsPacket.decode(b).answers!.length;
      },
    ),
  ],
  [
    'encode',
    ...compare(
      () => {
        for (const m of ours) sink += encodeMessage(m).length;
      },
      () => {
        for (const p of theirs) sink += dnsPacket.encode(p).length;
      },
    ),
  ],
  // Fresh names every time, so nothing cached on a Name helps: decode then re-encode.
  [
    'decode+encode',
    ...compare(
      () => {
        for (const r of responses) sink += encodeMessage(decodeMessage(r)).length;
      },
      () => {
        for (const b of buffers) sink += dnsPacket.encode(dnsPacket.decode(b)).length;
      },
    ),
  ],
] as const;

const avgBytes = responses.reduce((s, r) => s + r.length, 0) / responses.length;
console.log(`dns-codec: ${responses.length} responses, ${avgBytes.toFixed(0)} bytes on average (sink ${sink % 10})`);
for (const [what, mine, peer] of results) {
  console.log(
    `${what.padEnd(13)} @app/dns ${Math.round(mine).toLocaleString('en')} msg/CPU-s   dns-packet ${Math.round(peer).toLocaleString('en')} msg/CPU-s   ratio ${(mine / peer).toFixed(2)}x`,
  );
}
