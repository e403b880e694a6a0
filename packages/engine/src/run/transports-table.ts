// The Transport module's results as a table, one entry per name server address: what `dnscheck --json`
// puts under `transports`, the service's get_test_results carries and the web page draws. Made from
// the findings, so a saved or stored run gives the same table.
import type { Finding } from '../finding.ts';

export interface DotEntry {
  handshake: boolean;
  tls_version: string | null;
  alpn: string | null;
  cert_names: string[];
  cert_valid_for_ns: boolean;
  cert_not_after: string | null;
  soa_serial: number | null;
}

export interface DohEntry {
  get: boolean;
  post: boolean;
  soa_serial: number | null;
}

export interface TransportEntry {
  ns: string;
  address: string;
  /** null: port 853 refuses connections. */
  dot: DotEntry | null;
  /** null: port 443 refuses connections. */
  doh: DohEntry | null;
  udp_soa_serial: number | null;
  tcp_soa_serial: number | null;
  /** Milliseconds of the SOA query over each transport; null where none was answered. */
  ms: { udp: number | null; tcp: number | null; dot: number | null; doh: number | null };
}

const text = (value: unknown): string | null => (typeof value === 'string' || typeof value === 'number' ? String(value) || null : null);
const number = (value: unknown): number | null => (value === undefined || value === '' ? null : Number(value));
const list = (value: unknown): string[] => (text(value) ?? '').split(',').filter(Boolean);

const noDot = (handshake: boolean): DotEntry => ({
  handshake,
  tls_version: null,
  alpn: null,
  cert_names: [],
  cert_valid_for_ns: false,
  cert_not_after: null,
  soa_serial: null,
});

export function transportsTable(findings: readonly Finding[]): TransportEntry[] {
  const entries = new Map<string, TransportEntry>();
  const entry = (server: string): TransportEntry => {
    let found = entries.get(server);
    if (!found) {
      const slash = server.indexOf('/');
      found = {
        ns: server.slice(0, slash),
        address: server.slice(slash + 1),
        dot: null,
        doh: null,
        udp_soa_serial: null,
        tcp_soa_serial: null,
        ms: { udp: null, tcp: null, dot: null, doh: null },
      };
      entries.set(server, found);
    }
    return found;
  };
  for (const f of findings) {
    if (f.module !== 'TRANSPORT' || f.args.ns === undefined) continue;
    const e = entry(String(f.args.ns));
    const a = f.args;
    switch (f.tag) {
      case 'DOT_HANDSHAKE':
        e.dot = {
          handshake: true,
          tls_version: text(a.tls_version),
          alpn: text(a.alpn),
          cert_names: list(a.cert_names),
          cert_valid_for_ns: a.cert_valid === 'yes',
          cert_not_after: text(a.not_after),
          soa_serial: number(a.soa_serial),
        };
        break;
      case 'DOT_TIMEOUT':
      case 'DOT_HANDSHAKE_FAILED':
        e.dot = noDot(false);
        break;
      case 'DOH_RESULT':
        e.doh = { get: a.get === 'yes', post: a.post === 'yes', soa_serial: number(a.soa_serial) };
        break;
      case 'DOH_TIMEOUT':
        e.doh = { get: false, post: false, soa_serial: null };
        break;
      case 'TRANSPORT_SUMMARY':
        e.udp_soa_serial = number(a.udp_serial);
        e.tcp_soa_serial = number(a.tcp_serial);
        break;
      case 'TRANSPORT_TIMINGS':
        e.ms = { udp: number(a.udp_ms), tcp: number(a.tcp_ms), dot: number(a.dot_ms), doh: number(a.doh_ms) };
        break;
    }
  }
  return [...entries.values()];
}

const mark = (value: boolean): string => (value ? 'yes' : 'no');

/** The table as text, a line per address: `ns. @address: udp=… tcp=… dot=… doh=…`. */
export function transportsLines(table: readonly TransportEntry[]): string[] {
  const serial = (value: number | null): string => (value === null ? '-' : String(value));
  return table.map((e) => {
    const dot = e.dot
      ? e.dot.handshake
        ? `dot=${e.dot.tls_version ?? '?'},alpn:${e.dot.alpn ?? '-'},cert:${mark(e.dot.cert_valid_for_ns)},serial:${serial(e.dot.soa_serial)}`
        : 'dot=no-handshake'
      : 'dot=closed';
    const doh = e.doh ? `doh=get:${mark(e.doh.get)},post:${mark(e.doh.post)},serial:${serial(e.doh.soa_serial)}` : 'doh=closed';
    const times = Object.entries(e.ms)
      .map(([t, v]) => `${t}:${v ?? '-'}`)
      .join(',');
    return `${e.ns} @${e.address}: udp=${serial(e.udp_soa_serial)} tcp=${serial(e.tcp_soa_serial)} ${dot} ${doh} ms=${times}`;
  });
}
