// What the Chain view draws, read from get_test_chain's JSON (dnsviz grok's shape): per zone, root
// first, a node for the zone itself, its DNSKEYs, its apex SOA and NS RRsets, and, in the parent's
// box as DNSViz draws them, the child's DS records or the parent's proof that there is none; edges
// for "signs" (key to what its RRSIG covers) and "digest of" (DS to the key it names).
// Status words become tones by the engine's rules, which its SVG follows too (served by the import map).
import { toneOf, worstTone, zoneTone, type Tone } from '@app/engine/chain-tones';
import { keyRole, signedWord } from '@app/engine/chain-words';
import type { ChainJson, GrokDnskey, GrokDs, GrokNegative, GrokRrset, GrokRrsig, GrokZone } from './api.ts';

interface NodeBase {
  /** Unique in the picture; built from DNS data, so only ever used as a key, never as markup. */
  id: string;
  /** The zone whose box holds the node. */
  zone: string;
  /** The status word shown (DNSViz's), or a role for a key. */
  status: string;
  tone: Tone;
}

export type ChainNode =
  | (NodeBase & { kind: 'zone'; data: GrokZone })
  | (NodeBase & { kind: 'dnskey'; key: GrokDnskey; rrsigs: GrokRrsig[] })
  | (NodeBase & { kind: 'ds'; child: string; ds: GrokDs; rrsigs: GrokRrsig[] })
  | (NodeBase & { kind: 'rrset'; type: string; rrsets: GrokRrset[] })
  | (NodeBase & { kind: 'no-ds'; child: string; negative: GrokNegative[]; proofStatus: string });

export interface ChainEdge {
  from: string;
  to: string;
  kind: 'signs' | 'digest';
  tone: Tone;
}

export interface ChainZoneView {
  name: string;
  parent?: string;
  node: ChainNode & { kind: 'zone' };
  nodes: ChainNode[];
}

export interface ChainModel {
  zones: ChainZoneView[];
  nodes: Map<string, ChainNode>;
  edges: ChainEdge[];
}

const nodeId = (...parts: string[]): string => JSON.stringify(parts);
export const keyNodeId = (zone: string, keyId: string): string => nodeId(zone, 'DNSKEY', keyId);

const answers = (zone: GrokZone, name: string, type: string): GrokRrset[] => zone.queries?.[`${name}/IN/${type}`]?.answer ?? [];
const sigsOf = (rrsets: readonly GrokRrset[]): GrokRrsig[] => rrsets.flatMap((r) => r.rrsig ?? []);
const signerKey = (sig: GrokRrsig): string => keyNodeId(sig.signer, `${sig.algorithm}/${sig.key_tag}`);

export function chainModel(chain: ChainJson): ChainModel {
  const names = Object.keys(chain);
  const zones: ChainZoneView[] = [];
  const nodes = new Map<string, ChainNode>();
  const edges = new Map<string, ChainEdge>();
  const add = <T extends ChainNode>(node: T): T => {
    nodes.set(node.id, node);
    return node;
  };
  const link = (edge: ChainEdge): void => {
    const key = JSON.stringify([edge.kind, edge.from, edge.to]);
    const known = edges.get(key);
    edges.set(key, known ? { ...known, tone: worstTone([known.tone, edge.tone], edge.tone) } : edge);
  };

  names.forEach((name, i) => {
    const data = chain[name];
    const parent = i > 0 ? names[i - 1] : undefined;
    const status = data.delegation?.status ?? (parent === undefined ? 'root' : 'NONE');
    const tone = zoneTone(data.delegation?.status);
    const view: ChainZoneView = {
      name,
      ...(parent !== undefined && { parent }),
      node: add({ kind: 'zone', id: nodeId(name), zone: name, status, tone, data }),
      nodes: [],
    };
    zones.push(view);

    const dnskeySigs = sigsOf(answers(data, name, 'DNSKEY'));
    for (const key of data.dnskey ?? []) {
      const own = dnskeySigs.filter((sig) => sig.signer === name && sig.algorithm === key.algorithm && sig.key_tag === key.key_tag);
      view.nodes.push(add({ kind: 'dnskey', id: keyNodeId(name, key.id), zone: name, status: keyRole(key.flags), tone, key, rrsigs: own }));
    }
    for (const sig of dnskeySigs)
      for (const key of data.dnskey ?? [])
        link({ from: signerKey(sig), to: keyNodeId(name, key.id), kind: 'signs', tone: toneOf(sig.status) });

    for (const type of ['SOA', 'NS']) {
      const rrsets = answers(data, name, type);
      if (rrsets.length === 0) continue;
      const sigs = sigsOf(rrsets);
      const statuses = [...new Set(sigs.map((sig) => sig.status))];
      const node = add({
        kind: 'rrset',
        id: nodeId(name, type),
        zone: name,
        type,
        status: signedWord(sigs.map((sig) => sig.status)),
        tone: worstTone(statuses.map(toneOf), 'insecure'),
        rrsets,
      });
      view.nodes.push(node);
      for (const sig of sigs) link({ from: signerKey(sig), to: node.id, kind: 'signs', tone: toneOf(sig.status) });
    }
  });

  // A child's DS, or the proof there is none, sits in its parent's box: the parent signs it.
  for (const zone of zones) {
    const data = chain[zone.name];
    const box = zones.find((z) => z.name === zone.parent);
    if (box === undefined) continue;
    const dsQuery = data.queries?.[`${zone.name}/IN/DS`];
    const dsSigs = sigsOf(dsQuery?.answer ?? []);
    for (const ds of data.delegation?.ds ?? []) {
      const id = nodeId(box.name, 'DS', zone.name, ds.id);
      if (nodes.has(id)) continue;
      box.nodes.push(
        add({ kind: 'ds', id, zone: box.name, child: zone.name, status: ds.status, tone: toneOf(ds.status), ds, rrsigs: dsSigs }),
      );
      const key = keyNodeId(zone.name, `${ds.algorithm}/${ds.key_tag}`);
      if (nodes.has(key)) link({ from: id, to: key, kind: 'digest', tone: toneOf(ds.status) });
      for (const sig of dsSigs) link({ from: signerKey(sig), to: id, kind: 'signs', tone: toneOf(sig.status) });
    }
    const negative = [...(dsQuery?.nodata ?? []), ...(dsQuery?.nxdomain ?? [])];
    if ((data.delegation?.ds?.length ?? 0) === 0 && negative.length > 0) {
      const proofs = negative.flatMap((n) => n.proof ?? []);
      const proofStatus = [...new Set(proofs.map((p) => p.status))].join(', ');
      // A valid proof that there is no DS makes the delegation insecure, not bogus.
      const node = add({
        kind: 'no-ds',
        id: nodeId(box.name, 'no DS', zone.name),
        zone: box.name,
        child: zone.name,
        negative,
        proofStatus,
        status: proofStatus || 'no proof',
        tone: proofs.some((p) => p.status !== 'VALID') ? 'bogus' : 'insecure',
      });
      box.nodes.push(node);
      for (const proof of proofs) {
        for (const sig of sigsOf([...(proof.nsec ?? []), ...(proof.nsec3 ?? [])]))
          link({ from: signerKey(sig), to: node.id, kind: 'signs', tone: toneOf(sig.status) });
      }
    }
  }

  return { zones, nodes, edges: [...edges.values()].filter((e) => nodes.has(e.from) && nodes.has(e.to)) };
}

/** A zone name as people write it: without the final dot, but the root as ".". */
export const humanName = (name: string): string => (name === '.' ? '.' : name.replace(/\.$/, ''));
