// The oracle for the Transport module: what kdig (knot-dnsutils), getdns_query (getdns-utils) and
// openssl s_client observe of each lab server's DoT and DoH, read from their printed text only.
// Written apart from the engine on purpose. Recorded in test/reference-transports/ like the reference
// findings, so CI needs none of these tools; LAB_RECORD_TRANSPORTS=1 (or =missing) records anew.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Lab } from '@app/lab';

export const transportRecordings = resolve(import.meta.dirname, '../reference-transports');

/** What the tools saw at one server address (the server's name is what the certificate is checked for). */
export interface TransportObservation {
  /** kdig +tls (opportunistic: any certificate) got an answer over port 853. */
  dot_handshake: boolean;
  /** kdig +tls-ca +tls-hostname (strict: the lab CA and the server's name) got an answer. */
  dot_cert_valid_kdig: boolean;
  /** getdns_query in strict mode (-m) with the lab CA and the server's name got a GOOD answer. */
  dot_cert_valid_getdns: boolean;
  /** The protocol openssl s_client -alpn dot says the server chose; null for none. */
  dot_alpn: string | null;
  /** SOA serial kdig +tls got, or null. */
  dot_serial: number | null;
  /** kdig +https-get and +https (POST) to /dns-query, any certificate, answered with status 200 and a DNS answer. */
  doh_get: boolean;
  doh_post: boolean;
  /** kdig +https with the lab CA and the server's name answered. */
  doh_cert_valid: boolean;
  doh_serial: number | null;
  /** SOA serial over UDP (kdig +notcp). */
  udp_serial: number | null;
}

export interface TransportRecording {
  zone: string;
  tools: string[];
  commands: Record<string, string>;
  /** 'ns/address' → what the tools saw. */
  results: Record<string, TransportObservation>;
}

const timing = ['+timeout=2', '+retry=0'];

const serialIn = (text: string, zone: string): number | null => {
  const line = text.split('\n').find((l) => new RegExp(`^${zone.replace(/\./g, '\\.')}\\.?\\s+\\d+\\s+IN\\s+SOA\\s`).test(l));
  const fields = line?.trim().split(/\s+/);
  return fields ? Number(fields[6]) : null;
};

/** The commands, with <address>, <name>, <zone> and <ca> to fill in. */
export const transportCommands = {
  dot: `kdig @<address> +tls ${timing.join(' ')} <zone> SOA`,
  dotStrict: `kdig @<address> +tls-ca=<ca> +tls-hostname=<name> ${timing.join(' ')} <zone> SOA`,
  getdns: `getdns_query -s -m -L @<address>~<name> { tls_ca_file: "<ca>" } <zone> SOA`,
  alpn: 'openssl s_client -connect <address>:853 -alpn dot -servername <name>',
  dohGet: `kdig @<address> +https-get ${timing.join(' ')} <zone> SOA`,
  dohPost: `kdig @<address> +https ${timing.join(' ')} <zone> SOA`,
  dohStrict: `kdig @<address> +https +tls-ca=<ca> +tls-hostname=<name> ${timing.join(' ')} <zone> SOA`,
  udp: `kdig @<address> +notcp ${timing.join(' ')} <zone> SOA`,
};

async function observe(lab: Lab, zone: string, ns: string, address: string, ca: string): Promise<TransportObservation> {
  const name = ns.replace(/\.$/, '');
  const run = async (command: string, timeoutMs = 20_000): Promise<string> => {
    // getdns_query takes its settings as one argument between the braces.
    const filled = command
      .replace(/<address>/g, address)
      .replace(/<name>/g, name)
      .replace(/<zone>/g, zone)
      .replace(/<ca>/g, ca);
    const braces = /\{.*\}/.exec(filled)?.[0];
    const args = (braces ? filled.replace(braces, '\0') : filled).split(/\s+/).map((a) => (a === '\0' ? braces! : a));
    const result = await lab.exec(args[0], args.slice(1), { timeoutMs });
    return `${result.stdout}\n${result.stderr}`;
  };
  const [dot, dotStrict, getdns, alpn, dohGet, dohPost, dohStrict, udp] = await Promise.all([
    run(transportCommands.dot),
    run(transportCommands.dotStrict),
    run(transportCommands.getdns),
    // stdin is /dev/null: s_client ends after the handshake; a silent port is cut off after 6 s.
    run(transportCommands.alpn.replace('<address>', address.includes(':') ? `[${address}]` : address), 6_000),
    run(transportCommands.dohGet),
    run(transportCommands.dohPost),
    run(transportCommands.dohStrict),
    run(transportCommands.udp),
  ]);
  const answered = (text: string): boolean => /status: NOERROR/.test(text);
  const dohOk = (text: string, method: string): boolean => new RegExp(`HTTP/2-${method}\\).*status: 200`).test(text) && answered(text);
  const alpnLine = /ALPN protocol: (\S+)/.exec(alpn)?.[1];
  return {
    dot_handshake: /;; TLS session/.test(dot) && answered(dot),
    dot_cert_valid_kdig: answered(dotStrict),
    dot_cert_valid_getdns: /"status": GETDNS_RESPSTATUS_GOOD/.test(getdns),
    dot_alpn: alpnLine ?? null,
    dot_serial: serialIn(dot, zone),
    doh_get: dohOk(dohGet, 'GET'),
    doh_post: dohOk(dohPost, 'POST'),
    doh_cert_valid: dohOk(dohStrict, 'POST'),
    doh_serial: dohOk(dohPost, 'POST') ? serialIn(dohPost, zone) : null,
    udp_serial: serialIn(udp, zone),
  };
}

const recordingPath = (zone: string): string => join(transportRecordings, `${zone.replace(/\.$/, '')}.json`);

export async function recordTransportOracle(
  lab: Lab,
  zone: string,
  servers: { ns: string; address: string }[],
): Promise<TransportRecording> {
  const ca = lab.tlsCaPath;
  if (ca === undefined) throw new Error('the lab has no CA: no server of its scenario offers DoT or DoH');
  const packages = await lab.exec('dpkg-query', ['-W', '-f', '${Package} ${Version}\\n', 'knot-dnsutils', 'getdns-utils', 'openssl'], {
    timeoutMs: 10_000,
  });
  const versions = packages.stdout.trim().split('\n');
  const results: Record<string, TransportObservation> = {};
  for (let i = 0; i < servers.length; i += 4) {
    await Promise.all(
      servers.slice(i, i + 4).map(async (s) => {
        results[`${s.ns}/${s.address}`] = await observe(lab, zone, s.ns, s.address, ca);
      }),
    );
  }
  const recording: TransportRecording = {
    zone,
    tools: versions,
    commands: transportCommands,
    results: Object.fromEntries(Object.entries(results).sort(([a], [b]) => a.localeCompare(b))),
  };
  mkdirSync(transportRecordings, { recursive: true });
  writeFileSync(recordingPath(zone), `${JSON.stringify(recording, null, 2)}\n`);
  return recording;
}

/** The recorded oracle for `zone`; recorded now when LAB_RECORD_TRANSPORTS says so (1: always, missing: when absent). */
export async function transportOracle(lab: Lab, zone: string, servers: { ns: string; address: string }[]): Promise<TransportRecording> {
  const path = recordingPath(zone);
  const mode = process.env.LAB_RECORD_TRANSPORTS;
  if (mode === '1' || (mode === 'missing' && !existsSync(path))) return recordTransportOracle(lab, zone, servers);
  if (!existsSync(path)) throw new Error(`no transport oracle recorded for ${zone}: run with LAB_RECORD_TRANSPORTS=missing`);
  return JSON.parse(readFileSync(path, 'utf8')) as TransportRecording;
}
