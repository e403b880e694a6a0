// named.conf for one BIND process that acts as every server of the lab: one view per server, chosen
// by the address the query was sent to (match-destinations). Servers that misbehave are fronted by
// our responder on port 53; their BIND view listens on the backend port behind it.
import type { LabServer, TlsFiles } from './world-plan.ts';
import { quote } from './config-quote.ts';
import { bindPolicies, policyOptions } from './bind-policy.ts';

const addressList = (addresses: string[]): string => `{ ${addresses.map((a) => `${a};`).join(' ')} }`;

export interface BindConfigInput {
  dir: string;
  hintsPath: string;
  servers: LabServer[];
  /** CHAOS zone file per server that has a version string. */
  chaosZoneFiles: Record<string, string>;
  /** The root's DS rdata when the root is signed: the lab's open recursors validate with it. */
  trustAnchor?: string[];
  /** Certificate files of the servers that offer DoT or DoH, by name. */
  tls?: ReadonlyMap<string, TlsFiles>;
}

/** BIND's own DoT (853) and DoH (443, /dns-query) listeners, one `tls` block per server for its certificate. */
function encryptedListeners(servers: LabServer[], tls: ReadonlyMap<string, TlsFiles> | undefined): { listen: string[]; blocks: string[] } {
  const listen: string[] = [];
  const blocks: string[] = [];
  servers.forEach((server, index) => {
    const wanted = server.encrypted;
    const files = tls?.get(server.name);
    if (!wanted || wanted.front !== 'native' || !files) return;
    const name = quote(`lab-${index}`);
    blocks.push(`tls ${name} { key-file ${quote(files.key)}; cert-file ${quote(files.cert)}; };`);
    for (const v6 of [false, true]) {
      const addresses = server.addresses.filter((a) => a.includes(':') === v6);
      if (addresses.length === 0) continue;
      const statement = v6 ? 'listen-on-v6' : 'listen-on';
      if (wanted.dot === true) listen.push(`  ${statement} port 853 tls ${name} ${addressList(addresses)};`);
      if (wanted.doh) listen.push(`  ${statement} port 443 tls ${name} http "lab-doh" ${addressList(addresses)};`);
    }
  });
  if (listen.some((line) => line.includes('http'))) blocks.push('http "lab-doh" { endpoints { "/dns-query"; }; };');
  return { listen, blocks };
}

/** A `trust-anchors` statement (BIND's, which `delv -a` reads too) for the root's DS rdata. */
export function trustAnchorsText(ds: readonly string[]): string {
  const lines = ds.map((rdata) => {
    const [tag, algorithm, digestType, ...digest] = rdata.split(/\s+/);
    return `  . static-ds ${tag} ${algorithm} ${digestType} "${digest.join('')}";`;
  });
  return `trust-anchors {\n${lines.join('\n')}\n};\n`;
}

export const backendPort = 5353;

export function bindConfig({ dir, hintsPath, servers, chaosZoneFiles, trustAnchor, tls }: BindConfigInput): string {
  const encrypted = encryptedListeners(servers, tls);
  const listen = (engine: LabServer['engine'], v6: boolean): string[] =>
    servers.filter((s) => s.engine === engine).flatMap((s) => s.addresses.filter((a) => a.includes(':') === v6));
  const listenOn = (statement: string, v6: boolean): string[] => {
    const front = listen('bind', v6);
    const back = listen('responder', v6);
    const lines = [`  ${statement} ${front.length > 0 ? addressList(front) : '{ none; }'};`];
    if (back.length > 0) lines.push(`  ${statement} port ${backendPort} ${addressList(back)};`);
    return lines;
  };
  const out: string[] = [];
  out.push(`options {
  directory ${quote(dir)};
  pid-file none;
  session-keyfile none;
  managed-keys-directory ${quote(dir)};
${[...listenOn('listen-on', false), ...listenOn('listen-on-v6', true), ...encrypted.listen].join('\n')}
  automatic-interface-scan no;
  recursion no;
  allow-transfer { none; };
  dnssec-validation no;
  notify no;
  version none;
  hostname none;
  server-id none;
  empty-zones-enable no;
  // Scenarios serve broken data on purpose.
  check-names primary ignore;
  check-names response ignore;
  check-integrity no;
  check-mx ignore;
  check-mx-cname ignore;
  check-srv-cname ignore;
  check-wildcard no;
  check-sibling no;
  check-dup-records ignore;
};
controls { };
${encrypted.blocks.join('\n')}
`);
  if (servers.some((s) => s.zones.some((z) => z.kasp?.keyDir !== undefined))) out.push(bindPolicies());
  for (const server of servers) {
    const b = server.behaviour;
    const zones = server.zones.map((z) => `  zone ${quote(z.origin)} { type primary; file ${quote(z.file)};${policyOptions(z)} };`);
    const settings = [`  match-destinations ${addressList(server.addresses)};`];
    if (b.recursion) {
      settings.push('  recursion yes;', '  allow-recursion { any; };', '  allow-query-cache { any; };');
      // Validating from the lab's own root key; BIND's built-in anchor is the Internet's root, which the lab is not.
      if (trustAnchor !== undefined)
        settings.push(
          '  dnssec-validation yes;',
          ...trustAnchorsText(trustAnchor)
            .trimEnd()
            .split('\n')
            .map((line) => `  ${line}`),
        );
      if (!server.zones.some((z) => z.origin === '.')) zones.push(`  zone "." { type hint; file ${quote(hintsPath)}; };`);
    }
    if (b.axfr) settings.push('  allow-transfer { any; };');
    out.push(`view ${quote(server.name)} in {\n${[...settings, ...zones].join('\n')}\n};`);
    const chaosFile = chaosZoneFiles[server.name];
    if (chaosFile !== undefined) {
      out.push(`view ${quote(`${server.name} chaos`)} chaos {
  match-destinations ${addressList(server.addresses)};
  recursion no;
  zone "bind" chaos { type primary; file ${quote(chaosFile)}; allow-query { any; }; };
};`);
    }
  }
  // BIND's own CHAOS answers, in a view of ours before its built-in "_bind" one, which limits them
  // to 3 identical responses a second per client network: a checker asking every server of a zone
  // at once would find some of them silent.
  out.push(`view "lab chaos" chaos {
  recursion no;
  notify no;
  zone "version.bind" chaos { type primary; database "_builtin version"; };
  zone "hostname.bind" chaos { type primary; database "_builtin hostname"; };
  zone "authors.bind" chaos { type primary; database "_builtin authors"; };
  zone "id.server" chaos { type primary; database "_builtin id"; };
};`);
  return out.join('\n') + '\n';
}

/** The CHAOS-class `bind.` zone that answers version.bind with the scenario's string. */
export function chaosZoneText(version: string): string {
  const txt = `"${version.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  return `$TTL 0\n@ CH SOA @ @ 1 0 0 0 0\n@ CH NS @\nversion CH TXT ${txt}\n`;
}
