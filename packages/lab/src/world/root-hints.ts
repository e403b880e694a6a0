// The root hints file (named.root format) naming the lab's own root servers.
import type { LabServer } from './world-plan.ts';

export function rootHintsText(rootServers: LabServer[]): string {
  const lines = ['; Root hints of a hermetic DNS lab: these servers exist only inside its network namespace.'];
  for (const server of rootServers) lines.push(`.\t3600000\tIN\tNS\t${server.name}`);
  for (const server of rootServers) {
    for (const address of server.addresses) lines.push(`${server.name}\t3600000\tIN\t${address.includes(':') ? 'AAAA' : 'A'}\t${address}`);
  }
  return lines.join('\n') + '\n';
}
