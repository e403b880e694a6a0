// Root hints: the IANA root servers built in, or a named.root-style file (the format BIND and the
// reference engine read).
import { ipFamily } from '@app/dns';

export interface RootHint {
  name: string;
  address: string;
}

export class RootHintsError extends Error {
  override name = 'RootHintsError';
}

const iana: [letter: string, ipv4: string, ipv6: string][] = [
  ['a', '198.41.0.4', '2001:503:ba3e::2:30'],
  ['b', '170.247.170.2', '2801:1b8:10::b'],
  ['c', '192.33.4.12', '2001:500:2::c'],
  ['d', '199.7.91.13', '2001:500:2d::d'],
  ['e', '192.203.230.10', '2001:500:a8::e'],
  ['f', '192.5.5.241', '2001:500:2f::f'],
  ['g', '192.112.36.4', '2001:500:12::d0d'],
  ['h', '198.97.190.53', '2001:500:1::53'],
  ['i', '192.36.148.17', '2001:7fe::53'],
  ['j', '192.58.128.30', '2001:503:c27::2:30'],
  ['k', '193.0.14.129', '2001:7fd::1'],
  ['l', '199.7.83.42', '2001:500:9f::42'],
  ['m', '202.12.27.33', '2001:dc3::35'],
];

export const ianaRootHints: readonly RootHint[] = Object.freeze(
  iana.flatMap(([letter, ipv4, ipv6]) => [
    { name: `${letter}.root-servers.net`, address: ipv4 },
    { name: `${letter}.root-servers.net`, address: ipv6 },
  ]),
);

function bareName(text: string): string {
  const lower = text.toLowerCase();
  return lower === '.' ? lower : lower.replace(/\.$/, '');
}

/** Reads A and AAAA records of the root's NS names; fails with the line number on anything unreadable. */
export function readRootHints(text: string): RootHint[] {
  const rootNs = new Set<string>();
  const addresses: (RootHint & { line: number })[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/;.*$/, '').trim();
    if (!line || line.startsWith('$')) return;
    const fields = line.split(/\s+/);
    const owner = fields.shift() ?? '';
    // TTL and class are optional and may come in either order.
    while (fields.length > 2 && (/^\d+$/.test(fields[0] ?? '') || /^(IN|CH|HS)$/i.test(fields[0] ?? ''))) fields.shift();
    const [type = '', data = '', ...rest] = fields;
    if (rest.length > 0 || !data) throw new RootHintsError(`root hints line ${index + 1}: cannot read "${line}"`);
    switch (type.toUpperCase()) {
      case 'NS':
        if (bareName(owner) === '.') rootNs.add(bareName(data));
        break;
      case 'A':
      case 'AAAA':
        if (ipFamily(data) !== (type.toUpperCase() === 'A' ? 4 : 6))
          throw new RootHintsError(`root hints line ${index + 1}: "${data}" is not an ${type} address`);
        addresses.push({ name: bareName(owner), address: data, line: index + 1 });
        break;
      default:
        throw new RootHintsError(`root hints line ${index + 1}: unexpected record type ${type}`);
    }
  });
  const hints = addresses.filter((hint) => rootNs.size === 0 || rootNs.has(hint.name)).map(({ name, address }) => ({ name, address }));
  if (hints.length === 0) throw new RootHintsError('root hints: no root server addresses found');
  return hints;
}
