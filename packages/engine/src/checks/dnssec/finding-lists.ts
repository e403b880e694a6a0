// How the module's findings list servers, addresses and keys: in the reference's orders.
import { ipBytes } from '@app/dns';
import type { FindingArgs, Message } from '../../finding.ts';
import type { Nameserver } from '../../net/nameserver-client.ts';
import { byText } from '../../net/response.ts';

/** "a;b;c": sorted without repeats, as the reference lists addresses. */
export const ipList = (ips: Iterable<string>): string => [...new Set(ips)].sort(byText).join(';');

/** Addresses per key (key tag, name/type, ...), reported sorted by key. */
export class Grouped {
  readonly #map = new Map<string, string[]>();
  add(key: string | number, ip: string): void {
    const k = String(key);
    this.#map.set(k, [...(this.#map.get(k) ?? []), ip]);
  }
  messages(tag: string, args: (key: string) => FindingArgs = (key) => ({ keytag: Number(key) })): Message[] {
    return [...this.#map.keys()].sort(byText).map((key) => ({ tag, args: { ...args(key), ns_ip_list: ipList(this.#map.get(key)!) } }));
  }
}

/** One message with every address, when there is any. */
export const listed = (tag: string, ips: Iterable<string>): Message[] => {
  const list = ipList(ips);
  return list === '' ? [] : [{ tag, args: { ns_ip_list: list } }];
};

/** The reference's order of name servers: by name, then IPv4 before IPv6, then by address. */
export function byServer(a: string, b: string): number {
  const [x, y] = [a.split('/'), b.split('/')];
  if (x.length < 2 || y.length < 2 || x[0] !== y[0]) return byText(a, b);
  const [p, q] = [ipBytes(x[1]), ipBytes(y[1])];
  return p && q ? p.length - q.length || Buffer.compare(p, q) : byText(a, b);
}
/** "name/ip;name/ip": without repeats, in the reference's order of name servers. */
export const nsList = (servers: Iterable<Nameserver | string>): string => [...new Set([...servers].map(String))].sort(byServer).join(';');
/** The same for lists the reference has turned into text before sorting them (its set arithmetic does). */
export const textList = (servers: Iterable<string>): string => [...new Set(servers)].sort(byText).join(';');
export const names = (group: readonly Nameserver[]): string[] => group.map(String);

/** Keys of a map in number order, as text for the args of a finding. */
export const numbered = <T>(map: Map<number, T>): [number, T][] => [...map].sort(([a], [b]) => a - b);
export const push = <K>(map: Map<K, string[]>, key: K, items: readonly string[]): void => {
  map.set(key, [...(map.get(key) ?? []), ...items]);
};
