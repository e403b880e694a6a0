// Where the Chain view puts things, for the width it has: zones as boxes nested root outermost, each
// holding rows of its nodes (keys, then RRsets, then the child's DS), as many a row as fit. One
// unit is one CSS pixel at that width, so texts keep their size on a phone; the same chain at the
// same width is laid out the same every time.
import type { ChainModel, ChainNode } from './chain-model.ts';

export const NODE_H = 46;
const NEST = 10;
const PAD = 10;
const HEADING_H = 30;
const GAP_X = 14;
/** Room between rows for edges, and above a row of keys for the arcs between them. */
const GAP_Y = 34;
const ARC_ROOM = 22;
const MIN_NODE_W = 150;
const MAX_NODE_W = 240;
const MIN_WIDTH = 300;

export interface Rect { x: number; y: number; width: number; height: number }

export interface ChainLayout {
  width: number;
  height: number;
  /** Zone boxes in the model's order; each box's heading is its zone node. */
  boxes: (Rect & { zone: string; depth: number })[];
  /** Every node's rectangle, zone nodes as their box's heading. */
  places: Map<string, Rect>;
  /** Where the legend starts. */
  legendY: number;
}

const ORDER: Record<ChainNode['kind'], number> = { zone: 0, dnskey: 1, rrset: 2, ds: 3, 'no-ds': 3 };

export function layoutChain(model: ChainModel, availableWidth: number, legendHeight: number, emptyZoneHeight: number): ChainLayout {
  const width = Math.max(MIN_WIDTH, Math.floor(availableWidth));
  const places = new Map<string, Rect>();
  const tops: number[] = [];
  let y = PAD;
  model.zones.forEach((zone, depth) => {
    const x = depth * NEST + 1;
    const boxWidth = width - 2 * x;
    tops.push(y);
    places.set(zone.node.id, { x: x + 4, y: y + 3, width: boxWidth - 8, height: HEADING_H - 6 });
    y += HEADING_H;
    const inner = boxWidth - 2 * PAD;
    const columns = Math.max(1, Math.min(4, Math.floor((inner + GAP_X) / (MIN_NODE_W + GAP_X))));
    const nodeWidth = Math.min(MAX_NODE_W, (inner - (columns - 1) * GAP_X) / columns);
    const sorted = [...zone.nodes].sort((a, b) => ORDER[a.kind] - ORDER[b.kind]);
    let previousKind: number | undefined;
    let row: ChainNode[] = [];
    const rows: ChainNode[][] = [];
    for (const node of sorted) {
      // Each kind starts a row of its own.
      if (row.length === columns || (previousKind !== undefined && ORDER[node.kind] !== previousKind)) {
        rows.push(row);
        row = [];
      }
      row.push(node);
      previousKind = ORDER[node.kind];
    }
    if (row.length > 0) rows.push(row);
    if (rows[0]?.[0]?.kind === 'dnskey') y += ARC_ROOM;
    for (const nodes of rows) {
      const rowWidth = nodes.length * nodeWidth + (nodes.length - 1) * GAP_X;
      let nx = x + (boxWidth - rowWidth) / 2;
      for (const node of nodes) {
        places.set(node.id, { x: round(nx), y, width: round(nodeWidth), height: NODE_H });
        nx += nodeWidth + GAP_X;
      }
      y += NODE_H + GAP_Y;
    }
    if (rows.length === 0) y += emptyZoneHeight;
  });
  const count = model.zones.length;
  const bottom = y + Math.max(0, count - 1) * NEST;
  const boxes = model.zones.map((zone, depth) => {
    const x = depth * NEST + 1;
    return { zone: zone.name, depth, x, y: tops[depth], width: width - 2 * x, height: bottom - (depth * NEST) - tops[depth] };
  });
  const legendY = bottom + 20;
  return { width, height: legendY + legendHeight, boxes, places, legendY };
}

const round = (value: number): number => Math.round(value * 10) / 10;
