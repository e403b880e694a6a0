// The ZONE_INTEGRITY module's results in brief: the ZONEMD verdict per server address and overall, and
// whether the zone's names can be listed (with the NSEC3 parameters and hashes). What `dnscheck --json`
// puts under `zone_integrity`, get_test_results carries and the web page shows. Made from the findings,
// so a saved or stored run gives the same summary.
import type { Finding } from '../finding.ts';

export type ZonemdServerResult =
  'verified' | 'mismatch' | 'serial_mismatch' | 'duplicate' | 'unsupported' | 'refused' | 'incomplete' | 'absent';

export interface ZoneIntegritySummary {
  zonemd?: {
    /** verified: every transferred copy matches; failed: one does not; not_verifiable: only unknown algorithms; not_transferred: no server allowed a transfer. */
    verdict: 'absent' | 'verified' | 'failed' | 'not_verifiable' | 'not_transferred';
    same_on_all_servers: boolean;
    servers: { ns: string; address: string; result: ZonemdServerResult }[];
  };
  walk?: {
    denial: 'nsec' | 'nsec3' | 'none' | 'unknown';
    /** Whether the names can be listed by following the chain (NSEC). NSEC3 hashes can only be guessed at offline. */
    listable: boolean;
    /** NSEC: the names listed, and whether the chain was followed back to the apex. */
    names?: number;
    complete?: boolean;
    nsec3?: { iterations: number; salt: string; opt_out: boolean; as_rfc9276_advises: boolean };
    hashes: { name: string; hash: string }[];
  };
}

const perServer: Record<string, ZonemdServerResult> = {
  ZONEMD_DIGEST_VERIFIED: 'verified',
  ZONEMD_DIGEST_MISMATCH: 'mismatch',
  ZONEMD_SERIAL_MISMATCH: 'serial_mismatch',
  ZONEMD_DUPLICATE: 'duplicate',
  ZONEMD_NOT_VERIFIABLE: 'unsupported',
  ZONEMD_TRANSFER_INCOMPLETE: 'incomplete',
  ZONEMD_ABSENT_IN_TRANSFER: 'absent',
};
const failures: readonly ZonemdServerResult[] = ['mismatch', 'serial_mismatch', 'duplicate', 'absent'];
// A server's worst result stands for it (one record may match while another does not).
const rank: readonly ZonemdServerResult[] = [
  'verified',
  'unsupported',
  'refused',
  'incomplete',
  'absent',
  'duplicate',
  'serial_mismatch',
  'mismatch',
];

function split(server: string): { ns: string; address: string } {
  const slash = server.indexOf('/');
  return { ns: server.slice(0, slash), address: server.slice(slash + 1) };
}

function zonemdSummary(findings: readonly Finding[]): ZoneIntegritySummary['zonemd'] {
  if (findings.length === 0) return undefined;
  if (findings.some((f) => f.tag === 'ZONEMD_ABSENT')) return { verdict: 'absent', same_on_all_servers: true, servers: [] };
  const results = new Map<string, ZonemdServerResult>();
  const note = (server: string, result: ZonemdServerResult): void => {
    const known = results.get(server);
    if (known === undefined || rank.indexOf(result) > rank.indexOf(known)) results.set(server, result);
  };
  for (const f of findings) {
    if (perServer[f.tag] !== undefined) note(String(f.args.ns), perServer[f.tag]);
    if (f.tag === 'ZONEMD_NO_TRANSFER' || f.tag === 'ZONEMD_TRANSFER_REFUSED')
      for (const server of String(f.args.ns_list).split(';')) note(server, 'refused');
  }
  const servers = [...results].map(([server, result]) => ({ ...split(server), result }));
  const all = servers.map((s) => s.result);
  const verdict = all.some((r) => failures.includes(r))
    ? 'failed'
    : all.includes('verified')
      ? 'verified'
      : all.includes('unsupported')
        ? 'not_verifiable'
        : 'not_transferred';
  const differs = findings.some((f) => f.tag === 'ZONEMD_DIFFERS');
  return { verdict: differs ? 'failed' : verdict, same_on_all_servers: !differs, servers };
}

function walkSummary(findings: readonly Finding[]): ZoneIntegritySummary['walk'] {
  if (findings.length === 0) return undefined;
  const find = (tag: string) => findings.find((f) => f.tag === tag);
  const hashes = findings
    .filter((f) => ['NSEC3_HASH', 'NSEC3_HASH_MATCHED', 'NSEC3_HASH_COVERED'].includes(f.tag))
    .map((f) => ({ name: String(f.args.name), hash: String(f.args.hash) }));
  const nsec3 = find('NSEC3_HASHED_NAMES');
  if (nsec3 !== undefined) {
    const iterations = Number(nsec3.args.iterations);
    const salt = String(nsec3.args.salt);
    const optOut = nsec3.args.opt_out === true;
    return {
      denial: 'nsec3',
      listable: false,
      nsec3: { iterations, salt, opt_out: optOut, as_rfc9276_advises: find('NSEC3_PARAMETERS_ADVISED') !== undefined },
      hashes,
    };
  }
  if (find('NSEC3_UNKNOWN_HASH')) return { denial: 'nsec3', listable: false, hashes };
  const walked = find('NSEC_WALKED') ?? find('NSEC_WALK_LIMIT') ?? find('NSEC_WALK_STOPPED');
  if (walked !== undefined) {
    const complete = walked.tag === 'NSEC_WALKED';
    return { denial: 'nsec', listable: walked.tag !== 'NSEC_WALK_STOPPED', names: Number(walked.args.names), complete, hashes };
  }
  return { denial: find('DENIAL_NONE') ? 'none' : 'unknown', listable: false, hashes };
}

/** The summary of a run's ZONE_INTEGRITY findings (all levels); undefined when the module did not run. */
export function zoneIntegritySummary(findings: readonly Finding[]): ZoneIntegritySummary | undefined {
  const mine = findings.filter((f) => f.module === 'ZONE_INTEGRITY');
  if (mine.length === 0) return undefined;
  const zonemd = zonemdSummary(mine.filter((f) => f.testcase === 'ZoneIntegrity01'));
  const walk = walkSummary(mine.filter((f) => f.testcase === 'ZoneIntegrity02'));
  return { ...(zonemd && { zonemd }), ...(walk && { walk }) };
}

/** The summary as dnscheck's text output shows it: a line for ZONEMD, one per server, one for walking, one per hash. */
export function zoneIntegrityLines(summary: ZoneIntegritySummary): string[] {
  const lines: string[] = [];
  const { zonemd, walk } = summary;
  if (zonemd) {
    lines.push(`ZONEMD: ${zonemd.verdict}${zonemd.same_on_all_servers ? '' : ' (not the same on all servers)'}`);
    for (const s of zonemd.servers) lines.push(`  ${s.ns}/${s.address}: ${s.result}`);
  }
  if (walk) {
    const detail =
      walk.denial === 'nsec'
        ? `, ${walk.names} names${walk.complete === true ? '' : ' or more'}`
        : walk.nsec3
          ? `, iterations ${walk.nsec3.iterations}, salt ${walk.nsec3.salt}, opt-out ${walk.nsec3.opt_out}, as RFC 9276 advises: ${walk.nsec3.as_rfc9276_advises}`
          : '';
    lines.push(`walk: ${walk.denial}, listable: ${walk.listable}${detail}`);
    for (const h of walk.hashes) lines.push(`  NSEC3 ${h.name}: ${h.hash}`);
  }
  return lines;
}
