// The lab servers that Knot DNS, NSD or PowerDNS play: one process each (none of them has BIND's
// views), its configuration written into the run's directory, started by the supervisor.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { knotConfig } from './knot-config.ts';
import { nsdConfig } from './nsd-config.ts';
import { powerdnsSetup } from './powerdns-config.ts';
import type { LabServer, ServerProcess } from './world-plan.ts';

/** The command each implementation runs as, and the Debian package that has it. */
export const implementationCommands = {
  knot: ['knotd', 'knot'],
  nsd: ['nsd', 'nsd'],
  powerdns: ['pdns_server', 'pdns-server and pdns-backend-bind'],
} as const;

export function serverProcesses(servers: LabServer[], runDir: string, backendPort: number): ServerProcess[] {
  return servers.flatMap((server, index): ServerProcess[] => {
    const implementation = server.implementation;
    if (implementation === 'bind') return [];
    const dir = join(runDir, 'servers', `${index}-${server.name.replace(/[^a-z0-9.-]/gi, '_')}`);
    mkdirSync(join(dir, 'db'), { recursive: true });
    const port = server.engine === 'responder' ? backendPort : 53;
    let args: string[];
    if (implementation === 'knot') {
      writeFileSync(join(dir, 'knot.conf'), knotConfig(server, dir, port));
      args = ['-c', join(dir, 'knot.conf')];
      // Knot's KASP signs with the zone's stored keys, so key tags and DS stay the same from run to run.
      for (const zone of server.zones)
        for (const keyFile of zone.kasp?.keyFiles ?? [])
          execFileSync('keymgr', ['-c', join(dir, 'knot.conf'), zone.origin, 'import-bind', keyFile], { stdio: 'pipe' });
    } else if (implementation === 'nsd') {
      writeFileSync(join(dir, 'nsd.conf'), nsdConfig(server, dir, port));
      args = ['-d', '-c', join(dir, 'nsd.conf')];
    } else {
      args = powerdnsSetup(server, dir, port);
    }
    return [
      {
        server: server.name,
        implementation,
        command: implementationCommands[implementation][0],
        args,
        logPath: join(dir, `${implementation}.log`),
        address: server.addresses[0],
        port,
        zones: server.zones.map((z) => z.origin),
      },
    ];
  });
}
