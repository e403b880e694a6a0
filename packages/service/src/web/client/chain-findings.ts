// Which findings concern which node of the chain, from the tags and arguments get_test_evidence
// gives entry for entry beside the texts: a key tag names DNSKEYs and DS records, the DNSSEC test
// cases about one RRset's signatures name SOA or NS, a domain argument names a zone; the tested
// zone keeps its other DNSSEC findings above INFO.
import type { TestEvidence, TestResult } from './api.ts';
import type { ChainModel, ChainNode } from './chain-model.ts';
import { severity } from '../../shared/report-model.ts';

type Args = Record<string, unknown>;

const sameName = (a: string, b: string): boolean => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

/** Key tags an argument names: a number, "12345", "123, 456" or a list. */
function keyTags(args: Args): number[] {
  const value = args.keytag;
  const parts = Array.isArray(value) ? value : typeof value === 'number' || typeof value === 'string' ? String(value).split(/[\s,;]+/) : [];
  return parts.map(Number).filter((n) => Number.isInteger(n));
}

/** RR types the finding is about: its rrtype, type or types argument; DNSSEC09 (DS09_…) is SOA's signatures. */
function rrTypes(tag: string, args: Args): string[] {
  const named = [args.rrtype, args.type, args.types].flatMap((v) => (typeof v === 'string' ? v.split(/[\s,;/]+/) : []));
  return [...named.map((t) => t.toUpperCase()), ...(tag.startsWith('DS09_') ? ['SOA'] : [])];
}

const isDnssec = (r: TestResult): boolean => r.module.toUpperCase() === 'DNSSEC';

function concerns(node: ChainNode, result: TestResult, tag: string, args: Args): boolean {
  const domain = typeof args.domain === 'string' ? args.domain : undefined;
  switch (node.kind) {
    case 'dnskey':
      return keyTags(args).includes(node.key.key_tag) && (domain === undefined || sameName(domain, node.zone));
    case 'ds':
      // DS01 (digest types) and DS02 (DS against keys) speak of the DS records with that key tag.
      return (
        keyTags(args).includes(node.ds.key_tag) &&
        /^DS0[12]_|(^|_)DS(_|$)/.test(tag) &&
        (domain === undefined || sameName(domain, node.child))
      );
    case 'rrset':
      return isDnssec(result) && rrTypes(tag, args).includes(node.type) && (domain === undefined || sameName(domain, node.zone));
    case 'no-ds':
      return isDnssec(result) && /(^|_)(NO_DS|DS_ABSENT|DS_NOT)/.test(tag) && (domain === undefined || sameName(domain, node.child));
    case 'zone':
      return isDnssec(result) && domain !== undefined && sameName(domain, node.zone);
  }
}

/**
 * For each node, the findings that concern it, in the report's order. Without the evidence (an older
 * service) nothing can be matched and every list is empty.
 */
export function findingsByNode(
  model: ChainModel,
  results: readonly TestResult[],
  evidence: TestEvidence | undefined,
  domain: string,
): Map<string, TestResult[]> {
  const found = new Map<string, TestResult[]>([...model.nodes.keys()].map((id) => [id, []]));
  const coded = evidence?.results.length === results.length ? evidence.results : undefined;
  if (coded === undefined) return found;
  const tested = model.zones.find((z) => sameName(z.name, domain));
  results.forEach((result, i) => {
    const { tag, args } = coded[i];
    let placed = false;
    for (const node of model.nodes.values()) {
      if (node.kind === 'zone' || !concerns(node, result, tag, args)) continue;
      found.get(node.id)!.push(result);
      placed = true;
    }
    for (const zone of model.zones) {
      if (
        concerns(zone.node, result, tag, args) ||
        (!placed && zone === tested && isDnssec(result) && severity(result.level) > severity('INFO'))
      ) {
        found.get(zone.node.id)!.push(result);
      }
    }
  });
  return found;
}
