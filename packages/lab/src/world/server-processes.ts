// The lab servers that Knot DNS, NSD or PowerDNS play: one process each (none of them has BIND's
// views), its configuration written into the run's directory, started by the supervisor.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dnsdistCheckPort, dnsdistConfig } from './dnsdist-config.ts';
import { knotConfig } from './knot-config.ts';
import { nsdConfig } from './nsd-config.ts';
import { powerdnsSetup } from './powerdns-config.ts';
import type { LabServer, ServerProcess, TlsFiles } from './world-plan.ts';

/** The command each implementation runs as, and the Debian package that has it. */
export const implementationCommands = {
  knot: ['knotd', 'knot'],
  nsd: ['nsd', 'nsd'],
  powerdns: ['pdns_server', 'pdns-server and pdns-backend-bind'],
  dnsdist: ['dnsdist', 'dnsdist'],
} as const;

const serverDir = (runDir: string, index: number, server: LabServer): string =>
  join(runDir, 'servers', `${index}-${server.name.replace(/[^a-z0-9.-]/gi, '_')}`);

/** dnsdist serving DoT and DoH in front of a server (scenario `encrypted.front`). */
function dnsdistProcess(server: LabServer, dir: string, tls: TlsFiles, backend?: LabServer): ServerProcess {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'dnsdist.conf'), dnsdistConfig(server, tls, backend?.addresses[0]));
  return {
    server: server.name,
    implementation: 'dnsdist',
    command: implementationCommands.dnsdist[0],
    args: ['--supervised', '--disable-syslog', '-C', join(dir, 'dnsdist.conf')],
    logPath: join(dir, 'dnsdist.log'),
    address: server.addresses[0],
    port: dnsdistCheckPort,
    zones: server.zones.map((z) => z.origin),
  };
}

export function serverProcesses(
  servers: LabServer[],
  runDir: string,
  backendPort: number,
  tls: ReadonlyMap<string, TlsFiles> = new Map(),
): ServerProcess[] {
  return servers.flatMap((server, index): ServerProcess[] => {
    const implementation = server.implementation;
    const files = tls.get(server.name);
    const backend = servers.find((other) => other.name === server.encrypted?.backend);
    const front =
      server.encrypted?.front === 'dnsdist' && files
        ? [dnsdistProcess(server, join(serverDir(runDir, index, server), 'dnsdist'), files, backend)]
        : [];
    if (implementation === 'bind') return front;
    const dir = serverDir(runDir, index, server);
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
      writeFileSync(join(dir, 'nsd.conf'), nsdConfig(server, dir, port, files));
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
      ...front,
    ];
  });
}
