// CPU seconds each kind of process on the machine used between two readings of /proc, so a batch's
// cost can be split between agents, the lab's name servers and responder, PostgreSQL and the API.
// A process that ends between the readings is not counted; one that starts counts from zero.
import { readFileSync, readdirSync } from 'node:fs';

const ticksPerSecond = 100;

export type CpuReading = Map<number, { name: string; seconds: number }>;

export function readCpu(): CpuReading {
  const reading: CpuReading = new Map();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The name is in parentheses and may hold spaces; the fields after it are fixed.
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
      reading.set(pid, { name: commandName(pid, stat.slice(stat.indexOf('(') + 1, close)), seconds });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return reading;
}

/** node processes are told apart by what they run. */
function commandName(pid: number, comm: string): string {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (!/(^|\/)node$/.test(args[0] ?? '')) return comm;
    const script = args.find((a) => a.endsWith('.ts') || a.endsWith('.js'));
    const verb = script === undefined ? undefined : args[args.indexOf(script) + 1];
    return `node ${script?.split('/').slice(-2).join('/') ?? '?'}${verb && !verb.startsWith('-') ? ` ${verb}` : ''}`;
  } catch {
    return comm;
  }
}

/** CPU seconds per process name between two readings, largest first. */
export function cpuBetween(before: CpuReading, after: CpuReading): [string, number][] {
  const byName = new Map<string, number>();
  for (const [pid, now] of after) {
    const used = now.seconds - (before.get(pid)?.name === now.name ? before.get(pid)!.seconds : 0);
    if (used > 0) byName.set(now.name, (byName.get(now.name) ?? 0) + used);
  }
  return [...byName].sort((a, b) => b[1] - a[1]);
}
