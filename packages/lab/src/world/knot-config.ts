// knot.conf for one Knot DNS process playing one lab server: its addresses, its zones as the lab built
// them (served as they are: Knot checks nothing, as BIND is told in bind-config.ts, and signs only the
// zones a scenario gives to its KASP, with the keys the lab imports: see server-processes.ts).
import type { LabServer } from './world-plan.ts';
import { quote } from './config-quote.ts';

// Signing by hand-picked keys (the lab imports them), CDS/CDNSKEY for the KSK published or not.
const kaspPolicies = `policy:
  - id: lab
    manual: on
    cds-cdnskey-publish: none
  - id: lab-cds
    manual: on
    cds-cdnskey-publish: always
`;

export function knotConfig(server: LabServer, dir: string, port: number): string {
  const b = server.behaviour;
  const zones = server.zones.map(
    (z) =>
      `  - domain: ${quote(z.origin)}\n    file: ${quote(z.file)}${b.axfr ? '\n    acl: transfer' : ''}` +
      (z.kasp ? `\n    dnssec-signing: on\n    dnssec-policy: ${z.kasp.cds ? 'lab-cds' : 'lab'}` : ''),
  );
  return `server:
    rundir: ${quote(dir)}
    listen: [ ${server.addresses.map((a) => quote(`${a}@${port}`)).join(', ')} ]
    identity: ""
    version: ${quote(b.version ?? '')}
    udp-workers: 1
    tcp-workers: 1
    background-workers: 1
log:
  - target: stderr
    any: info
database:
    storage: ${quote(`${dir}/db`)}
${server.zones.some((z) => z.kasp) ? kaspPolicies : ''}acl:
  - id: transfer
    address: [ 0.0.0.0/0, ::/0 ]
    action: transfer
template:
  - id: default
    storage: ${quote(dir)}
    semantic-checks: off
    zonefile-load: whole
    zonefile-sync: -1
    journal-content: none
zone:
${zones.length > 0 ? zones.join('\n') : '  []'}
`;
}
