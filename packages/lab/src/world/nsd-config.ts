// nsd.conf for one NSD process playing one lab server: its addresses and its zones as the lab built
// them, in the foreground, without a database, chroot or privilege drop.
import type { LabServer, TlsFiles } from './world-plan.ts';
import { quote } from './config-quote.ts';

/** NSD's own DNS over TLS service (it has no DoH, and offers no ALPN). */
const servesTls = (server: LabServer, tls: TlsFiles | undefined): tls is TlsFiles =>
  server.encrypted?.front === 'native' && server.encrypted.dot === true && tls !== undefined;
const tlsService = (tls: TlsFiles): string =>
  `    tls-service-key: ${quote(tls.key)}\n    tls-service-pem: ${quote(tls.cert)}\n    tls-port: 853\n`;

export function nsdConfig(server: LabServer, dir: string, port: number, tls?: TlsFiles): string {
  const b = server.behaviour;
  const zones = server.zones.map(
    (z) =>
      `zone:\n    name: ${quote(z.origin)}\n    zonefile: ${quote(z.file)}${b.axfr ? '\n    provide-xfr: 0.0.0.0/0 NOKEY\n    provide-xfr: ::0/0 NOKEY' : ''}`,
  );
  return `server:
${server.addresses.map((a) => `    ip-address: ${a}@${port}`).join('\n')}
${servesTls(server, tls) ? server.addresses.map((a) => `    ip-address: ${a}@853\n`).join('') : ''}
    username: ""
    chroot: ""
    database: ""
    zonesdir: ${quote(dir)}
    zonelistfile: ${quote(`${dir}/zone.list`)}
    xfrdfile: ${quote(`${dir}/xfrd.state`)}
    xfrdir: ${quote(dir)}
    pidfile: ""
    logfile: ""
    verbosity: 1
    server-count: 1
    hide-identity: yes
${servesTls(server, tls) ? tlsService(tls) : ''}${b.version === undefined ? '    hide-version: yes' : `    version: ${quote(b.version)}`}
remote-control:
    control-enable: no
${zones.join('\n')}
`;
}
