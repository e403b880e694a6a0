// The chain as an SVG picture, DNSViz's way: each zone a box nested in its parent's, holding its
// DNSKEYs, its SOA and NS RRsets and the DS records it holds for its child; edges for "signs" (key to
// RRset) and "digest of" (DS to key), coloured and dashed by status, with a legend. Tones and layout
// are the service's Chain view's (chain-tones.ts, chain-layout.ts), at a fixed 400 px, so the same
// analysis always draws the same file and it stays readable at 360 px; every text from DNS data is escaped.
import { RRType, typeToString } from '@app/dns';
import type { ChainAnalysis, ChainZone } from './analyse-chain.ts';
import { edgePath, layoutZones, type Rect } from './chain-layout.ts';
import { TONE_LOOKS, TONES, toneOf, worstTone, zoneTone, type Tone } from './chain-tones.ts';
import { isRevoked, keyBits, keyRole, rootHeading, signedWord } from './chain-words.ts';

/** The picture's width: the Chain view's layout at 400 px (two nodes a row), readable at 360 px once scaled. */
const WIDTH = 400;
const LEGEND_ROW = 20;
/** The legend: its title, a row a tone, and the line on shapes. */
const LEGEND_H = LEGEND_ROW * (TONES.length + 1) + 22;
/** A zone without nodes holds a one-line note. */
const NOTE_H = 22;

/** The legend's words for the tones (the web view has its own, translated). */
const toneWords: Record<Tone, string> = {
  secure: 'valid / secure',
  insecure: 'insecure / no DNSSEC',
  indeterminate: 'indeterminate (no key, unknown algorithm)',
  bogus: 'bogus, invalid, expired or premature',
};
const dashOf = (tone: Tone): string => {
  const { dash } = TONE_LOOKS[tone];
  return dash === undefined ? '' : ` stroke-dasharray="${dash}"`;
};

/** Text for SVG: markup characters as references, and code points XML cannot hold as U+FFFD. */
export function escapeXml(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0)!;
    if ('&<>"\''.includes(c)) out += `&#${code};`;
    else if (
      (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) ||
      (code >= 0x7f && code <= 0x9f) ||
      code === 0xfffe ||
      code === 0xffff
    )
      out += '\ufffd';
    else out += c;
  }
  return out;
}

const human = (name: string): string => (name === '.' ? '.' : name.replace(/\.$/, ''));
/** Long names are cut in the middle so a node keeps its width; the whole name is in the node's title. */
const fit = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, Math.ceil(max / 2) - 1)}…${text.slice(-Math.floor(max / 2))}`;
/** How many characters of 12 px text a width holds (about 6.6 px each), as the Chain view counts them. */
const charsIn = (width: number): number => Math.max(6, Math.floor((width - 14) / 6.6));

export interface ChainNode {
  /** Stable: "zone|DNSKEY|13/37737", "zone|DS|13/37737/2", "zone|SOA". */
  id: string;
  zone: string;
  kind: 'DNSKEY' | 'DS' | 'RRSET';
  label: string;
  detail: string;
  tone: Tone;
  /** What a screen reader says, and the tooltip. */
  description: string;
}

interface Edge {
  from: string;
  to: string;
  tone: Tone;
  kind: 'signs' | 'digest';
}

const roleOf = (flags: number): string => `${keyRole(flags)}${isRevoked(flags) ? ', revoked' : ''}`;

/** The picture's nodes and edges, in a fixed order. */
export function chainGraph(analysis: ChainAnalysis): { nodes: ChainNode[]; edges: Edge[] } {
  const nodes: ChainNode[] = [];
  const edges = new Map<string, Edge>();
  const addEdge = (edge: Edge): void => {
    const key = `${edge.kind} ${edge.from} ${edge.to}`;
    const known = edges.get(key);
    edges.set(key, known ? { ...known, tone: worstTone([known.tone, edge.tone], edge.tone) } : edge);
  };
  const childOf = (zone: ChainZone): ChainZone | undefined => analysis.zones.find((z) => z.parent === zone.name);
  for (const zone of analysis.zones) {
    const z = zone.name;
    for (const key of zone.dnskeys) {
      nodes.push({
        id: `${z}|DNSKEY|${key.id}`,
        zone: z,
        kind: 'DNSKEY',
        label: `DNSKEY ${key.id}`,
        detail: `${roleOf(key.flags)}, ${keyBits(key.algorithm, key.keyLength)} bits`,
        tone: zoneTone(zone.delegation?.status),
        description: `DNSKEY of ${human(z)}: algorithm ${key.algorithm}, key tag ${key.keyTag}, flags ${key.flags} (${roleOf(key.flags)}), ${keyBits(key.algorithm, key.keyLength)} bits`,
      });
    }
    // The picture keeps to the chain: the apex's SOA and NS (the JSON has every question).
    for (const query of zone.queries) {
      if (query.name !== z || (query.type !== RRType.SOA && query.type !== RRType.NS)) continue;
      const sigStatuses = query.rrsets.flatMap((r) => r.rrsigs.map((sig) => sig.status));
      const tone = worstTone(sigStatuses.map(toneOf), 'insecure');
      const id = `${z}|${typeToString(query.type)}`;
      const signing = query.kind !== 'answer' ? query.kind : signedWord(sigStatuses);
      nodes.push({
        id,
        zone: z,
        kind: 'RRSET',
        label: `${typeToString(query.type)} RRset`,
        detail: signing,
        tone,
        description: `${typeToString(query.type)} RRset of ${human(z)}: ${signing}`,
      });
      for (const rrset of query.rrsets) {
        for (const sig of rrset.rrsigs)
          if (sig.key) addEdge({ from: `${sig.signer}|DNSKEY|${sig.key}`, to: id, tone: toneOf(sig.status), kind: 'signs' });
      }
    }
    // The DNSKEY RRset's signatures: from the signing key to every key of the set.
    for (const query of zone.queries.filter((q) => q.type === RRType.DNSKEY)) {
      for (const rrset of query.rrsets) {
        for (const sig of rrset.rrsigs) {
          if (!sig.key) continue;
          for (const key of zone.dnskeys)
            addEdge({ from: `${z}|DNSKEY|${sig.key}`, to: `${z}|DNSKEY|${key.id}`, tone: toneOf(sig.status), kind: 'signs' });
        }
      }
    }
    // The child's DS records live in this zone's box.
    const child = childOf(zone);
    if (child?.delegation) {
      for (const ds of child.delegation.ds) {
        const id = `${z}|DS|${child.name}|${ds.id}`;
        if (nodes.some((n) => n.id === id)) continue;
        nodes.push({
          id,
          zone: z,
          kind: 'DS',
          label: `DS ${ds.id}`,
          detail: ds.status,
          tone: toneOf(ds.status),
          description: `DS for ${human(child.name)} at ${human(z)}: algorithm ${ds.algorithm}, key tag ${ds.keyTag}, digest type ${ds.digestType}: ${ds.status}${[...ds.errors, ...ds.warnings].map((p) => `; ${p.description}`).join('')}`,
        });
        if (ds.key) addEdge({ from: id, to: `${child.name}|DNSKEY|${ds.key}`, tone: toneOf(ds.status), kind: 'digest' });
      }
      for (const query of child.queries.filter((q) => q.type === RRType.DS)) {
        for (const rrset of query.rrsets) {
          for (const sig of rrset.rrsigs) {
            if (!sig.key) continue;
            for (const ds of child.delegation.ds)
              addEdge({
                from: `${sig.signer}|DNSKEY|${sig.key}`,
                to: `${z}|DS|${child.name}|${ds.id}`,
                tone: toneOf(sig.status),
                kind: 'signs',
              });
          }
        }
      }
    }
  }
  const ids = new Set(nodes.map((n) => n.id));
  return { nodes, edges: [...edges.values()].filter((e) => ids.has(e.from) && ids.has(e.to)) };
}

export function drawChainSvg(analysis: ChainAnalysis): string {
  const { nodes, edges } = chainGraph(analysis);
  const zones = analysis.zones;
  const idsOf = (zone: ChainZone, kind: ChainNode['kind']): string[] =>
    nodes.filter((n) => n.zone === zone.name && n.kind === kind).map((n) => n.id);
  const headingOf = (zone: ChainZone): string => `${zone.name}|ZONE`;
  const layout = layoutZones(
    zones.map((zone) => ({
      name: zone.name,
      heading: headingOf(zone),
      keys: idsOf(zone, 'DNSKEY'),
      rrsets: idsOf(zone, 'RRSET'),
      ds: idsOf(zone, 'DS'),
    })),
    WIDTH,
    LEGEND_H,
    NOTE_H,
  );
  const { width, height, places } = layout;
  const nodeRects = nodes.map((n) => places.get(n.id)).filter((r): r is Rect => r !== undefined);

  const out: string[] = [];
  const title = `DNSSEC chain of ${human(analysis.domain)}`;
  const summary = zones.map((z) => `${human(z.name)}: ${z.delegation ? z.delegation.status : 'root'}`).join('; ');
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="100%" style="max-width:${width * 2}px" role="img" aria-labelledby="chain-title chain-desc" font-family="system-ui, sans-serif" font-size="12">`,
  );
  out.push(`<title id="chain-title">${escapeXml(title)}</title>`);
  out.push(`<desc id="chain-desc">${escapeXml(summary)}</desc>`);
  out.push('<defs>');
  for (const tone of TONES) {
    out.push(
      `<marker id="arrow-${tone}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="${TONE_LOOKS[tone].colour}"/></marker>`,
    );
  }
  out.push('</defs>');
  out.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);

  // Zone boxes, outermost first, each reaching down around its children.
  for (const box of layout.boxes) {
    const zone = zones[box.depth];
    const status = zone.delegation?.status;
    const tone = zoneTone(status);
    const look = TONE_LOOKS[tone];
    const heading = places.get(headingOf(zone))!;
    out.push(`<g class="zone" data-zone="${escapeXml(zone.name)}">`);
    out.push(
      `<rect x="${box.x}" y="${box.y}" width="${box.width}" height="${box.height}" rx="8" fill="${box.depth % 2 ? '#f4f6f8' : '#fbfcfd'}" stroke="${look.colour}" stroke-width="1.5"${dashOf(tone)}/>`,
    );
    const headingText = zone.name === '.' ? rootHeading() : `${fit(human(zone.name), 34)}${status ? ` — ${status}` : ''}`;
    out.push(`<text x="${heading.x + 6}" y="${heading.y + 17}" font-weight="bold" fill="${look.colour}">${escapeXml(headingText)}</text>`);
    if (!nodes.some((n) => n.zone === zone.name)) {
      // A zone whose DNSKEY was asked and none came is unsigned; otherwise nothing was asked to tell.
      const unsigned = zone.queries.some((q) => q.type === RRType.DNSKEY && q.kind !== 'error');
      out.push(
        `<text x="${heading.x + 6}" y="${heading.y + heading.height + 14}" fill="#555555" font-size="11">${unsigned ? 'unsigned: no DNSKEY records' : 'no DNSSEC records asked in this run'}</text>`,
      );
    }
    out.push('</g>');
  }

  for (const edge of edges) {
    const a = places.get(edge.from);
    const b = places.get(edge.to);
    if (!a || !b) continue;
    const attrs = `fill="none" stroke="${TONE_LOOKS[edge.tone].colour}" stroke-width="1.6"${dashOf(edge.tone)} marker-end="url(#arrow-${edge.tone})"`;
    const label = `${edge.kind === 'signs' ? 'signs' : 'digest of'}: ${edge.from.split('|').slice(-1)[0]} → ${edge.to.split('|').slice(-1)[0]} (${edge.tone})`;
    out.push(
      `<path class="edge" d="${edgePath(a, b, edge.from === edge.to, nodeRects)}" ${attrs}><title>${escapeXml(label)}</title></path>`,
    );
  }

  for (const node of nodes) {
    const p = places.get(node.id)!;
    const look = TONE_LOOKS[node.tone];
    const shape = node.kind === 'DNSKEY' ? 'rx="18"' : node.kind === 'DS' ? 'rx="3"' : 'rx="8"';
    out.push(`<g class="node" tabindex="0" role="img" aria-label="${escapeXml(node.description)}" data-node-id="${escapeXml(node.id)}">`);
    out.push(`<title>${escapeXml(node.description)}</title>`);
    out.push(
      `<rect x="${p.x}" y="${p.y}" width="${p.width}" height="${p.height}" ${shape} fill="#ffffff" stroke="${look.colour}" stroke-width="2"${dashOf(node.tone)}/>`,
    );
    out.push(
      `<text x="${p.x + p.width / 2}" y="${p.y + 18}" text-anchor="middle" font-weight="bold" fill="#111111">${escapeXml(fit(node.label, charsIn(p.width)))}</text>`,
    );
    out.push(
      `<text x="${p.x + p.width / 2}" y="${p.y + 35}" text-anchor="middle" font-size="11" fill="${look.colour}">${escapeXml(fit(node.detail, charsIn(p.width)))}</text>`,
    );
    out.push('</g>');
  }

  // The legend: what colours, dashes and shapes mean.
  out.push(`<g class="legend" transform="translate(4 ${layout.legendY})">`);
  out.push('<text x="0" y="0" font-weight="bold">Legend</text>');
  TONES.forEach((tone, i) => {
    const ly = LEGEND_ROW * (i + 1);
    out.push(`<line x1="0" y1="${ly - 4}" x2="40" y2="${ly - 4}" stroke="${TONE_LOOKS[tone].colour}" stroke-width="2"${dashOf(tone)}/>`);
    out.push(`<text x="48" y="${ly}" fill="${TONE_LOOKS[tone].colour}">${escapeXml(toneWords[tone])}</text>`);
  });
  out.push(
    `<text x="0" y="${LEGEND_ROW * (TONES.length + 1)}" font-size="11" fill="#333333">Round: DNSKEY · square: DS · arrows: signs, or digest of (DS → key)</text>`,
  );
  out.push('</g>');
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
