// Start-up time and memory of a generated big:N world (big.test. with N delegated children): cold
// (zone files written, the few signed children signed), then cached, with named's RSS once it runs,
// and a check that a healthy, a lame and a silent child answer as they should.
// Usage: npm run bench:lab-big [-- 1000 10000]
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { RRType } from '@app/dns';
import { bigChildren, type BigChild, labUnavailableReason, startLab, type Lab } from '@app/lab';

const sizes = process.argv.slice(2).map(Number);
const reason = await labUnavailableReason();
if (reason !== undefined) {
  console.error(`bench:lab-big: ${reason}`);
  process.exit(2);
}

/** named's resident memory: the process called named in the lab's network namespace. */
function namedRssMb(lab: Lab): number | undefined {
  const labNet = readlinkSync(`/proc/${lab.pid}/ns/net`);
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'named' || readlinkSync(`/proc/${pid}/ns/net`) !== labNet) continue;
      return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

async function check(lab: Lab, n: number): Promise<string> {
  const children = bigChildren(n);
  const first = (kind: string): BigChild => children.find((c) => c.kind === kind)!;
  const ask = async (server: string, name: string, type: number): Promise<string> => {
    const reply = await lab.query(server, { name, type }, { timeoutMs: 1000, retries: 0 });
    return reply.outcome === 'response' ? `rcode ${reply.message.rcode}, ${reply.message.answer.length} answers` : reply.outcome;
  };
  const [last, lame, silent] = [children.at(-1)!, first('lame'), first('silent')];
  return [
    `${last.name} SOA: ${await ask(last.ns[0], last.name, RRType.SOA)}`,
    `lame ${lame.name} SOA from ${lame.ns[1]}: ${await ask(lame.ns[1], lame.name, RRType.SOA)}`,
    `silent ${silent.name} NS: ${await ask(silent.ns[0], silent.name, RRType.NS)}`,
  ].join('; ');
}

for (const n of sizes.length > 0 ? sizes : [1000, 10_000]) {
  for (const cache of [false, true]) {
    const begun = performance.now();
    const lab = await startLab([`big:${n}`], { cache });
    const seconds = (performance.now() - begun) / 1000;
    try {
      const steps = Object.entries(lab.startup)
        .map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`)
        .join(', ');
      console.log(
        `big:${n} ${cache ? 'cached' : 'cold  '}: up in ${seconds.toFixed(1)} s (${steps}); named RSS ${namedRssMb(lab)?.toFixed(0) ?? '?'} MB; ${await check(lab, n)}`,
      );
    } finally {
      await lab.stop();
    }
  }
}
