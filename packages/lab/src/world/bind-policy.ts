// Zones BIND signs itself with a dnssec-policy (scenario `dnssec.signer: bind-policy`): each view gets
// its own copy of the zone file and of the zone's stored keys in this run's directory, since named
// writes its signed zone, journal and key states beside them and the built world is shared between runs.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { basename, join } from 'node:path';
import { quote } from './config-quote.ts';
import type { LabServer, ServedZone } from './world-plan.ts';

const run = promisify(execFile);

/** The policies: keys adopted from the key directory (roles and algorithm as the lab made them), never rolled. */
export function bindPolicies(): string {
  const policy = (name: string) => `dnssec-policy ${quote(name)} {
  keys {
    ksk key-directory lifetime unlimited algorithm ecdsap256sha256;
    zsk key-directory lifetime unlimited algorithm ecdsap256sha256;
  };
  dnskey-ttl 3600;
  publish-safety 0;
  retire-safety 0;
  zone-propagation-delay 0;
  parent-propagation-delay 0;
  max-zone-ttl 86400;
};`;
  return `${policy('lab-cds')}\n`;
}

/** The zone stanza's signing options. */
export const policyOptions = (zone: ServedZone): string =>
  zone.kasp?.keyDir === undefined ? '' : ` dnssec-policy "lab-cds"; inline-signing yes; key-directory ${quote(zone.kasp.keyDir)};`;

/** The BIND servers' policy-signed zones, copied (zone file and keys) into `runDir`, one copy per view. */
export async function withPolicyCopies(servers: readonly LabServer[], runDir: string): Promise<LabServer[]> {
  return Promise.all(
    servers.map(async (server, index) => {
      if (server.implementation !== 'bind' || !server.zones.some((z) => z.kasp)) return server;
      const zones = await Promise.all(
        server.zones.map(async (zone): Promise<ServedZone> => {
          if (zone.kasp === undefined) return zone;
          if (!zone.kasp.cds) throw new Error(`${zone.origin}: BIND's dnssec-policy always publishes CDS here; give it cds: correct`);
          const dir = join(runDir, 'policy', `${index}-${zone.origin.replace(/[^a-z0-9.-]/gi, '_')}`);
          await mkdir(dir, { recursive: true });
          const file = join(dir, 'zone.db');
          await copyFile(zone.file, file);
          for (const key of zone.kasp.keyFiles) {
            for (const path of [key, key.replace(/\.key$/, '.private')]) await copyFile(path, join(dir, basename(path)));
            // A sync-publish time in the past tells the policy the KSK may be in the parent's DS set: it publishes CDS/CDNSKEY at once.
            if (/\sDNSKEY\s+257\s/.test(await readFile(key, 'utf8')))
              await run('dnssec-settime', ['-K', dir, '-P', 'sync', '-1d', basename(key, '.key')]);
          }
          return { ...zone, file, kasp: { ...zone.kasp, keyDir: dir } };
        }),
      );
      return { ...server, zones };
    }),
  );
}
