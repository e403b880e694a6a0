// Where a chain picture puts things, for the width it has: zones as boxes nested root outermost, each
// holding rows of its nodes (keys, then RRsets, then the child's DS), as many a row as fit; and the
// path of each edge. One unit is one CSS pixel at that width, so texts keep their size on a phone; the
// same chain at the same width is laid out the same every time. The one layout of the engine's SVG
// and of the service's Chain view: the service serves this very file to browsers, so it imports
// nothing and keeps to syntax Node can strip of its types.

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

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A zone to lay out: the id of its heading, and its nodes' ids by kind, each kind in rows of its own. */
export interface ZoneToLay {
  name: string;
  heading: string;
  keys: readonly string[];
  rrsets: readonly string[];
  /** The child's DS records, or the proof that there are none. */
  ds: readonly string[];
}

export interface ChainLayout {
  width: number;
  height: number;
  /** Zone boxes in the zones' order. */
  boxes: (Rect & { zone: string; depth: number })[];
  /** Every node's rectangle, each zone's heading included. */
  places: Map<string, Rect>;
  /** Where the legend starts. */
  legendY: number;
}

const round = (value: number): number => Math.round(value * 10) / 10;

/** The layout of `zones` (root first) at `availableWidth`, leaving room for a legend and for a note in a zone without nodes. */
export function layoutZones(
  zones: readonly ZoneToLay[],
  availableWidth: number,
  legendHeight: number,
  emptyZoneHeight: number,
): ChainLayout {
  const width = Math.max(MIN_WIDTH, Math.floor(availableWidth));
  const places = new Map<string, Rect>();
  const tops: number[] = [];
  let y = PAD;
  zones.forEach((zone, depth) => {
    const x = depth * NEST + 1;
    const boxWidth = width - 2 * x;
    tops.push(y);
    places.set(zone.heading, { x: x + 4, y: y + 3, width: boxWidth - 8, height: HEADING_H - 6 });
    y += HEADING_H;
    const inner = boxWidth - 2 * PAD;
    const columns = Math.max(1, Math.min(4, Math.floor((inner + GAP_X) / (MIN_NODE_W + GAP_X))));
    const nodeWidth = Math.min(MAX_NODE_W, (inner - (columns - 1) * GAP_X) / columns);
    const rows: string[][] = [];
    for (const kind of [zone.keys, zone.rrsets, zone.ds]) {
      for (let i = 0; i < kind.length; i += columns) rows.push(kind.slice(i, i + columns));
    }
    if (zone.keys.length > 0) y += ARC_ROOM;
    for (const ids of rows) {
      const rowWidth = ids.length * nodeWidth + (ids.length - 1) * GAP_X;
      let nx = x + (boxWidth - rowWidth) / 2;
      for (const id of ids) {
        places.set(id, { x: round(nx), y, width: round(nodeWidth), height: NODE_H });
        nx += nodeWidth + GAP_X;
      }
      y += NODE_H + GAP_Y;
    }
    if (rows.length === 0) y += emptyZoneHeight;
  });
  const bottom = y + Math.max(0, zones.length - 1) * NEST;
  const boxes = zones.map((zone, depth) => {
    const x = depth * NEST + 1;
    return { zone: zone.name, depth, x, y: tops[depth] ?? 0, width: width - 2 * x, height: bottom - depth * NEST - (tops[depth] ?? 0) };
  });
  const legendY = bottom + 20;
  return { width, height: legendY + legendHeight, boxes, places, legendY };
}

/** An edge's path: a loop for a key signing its own set, an arc between nodes of one row, else a curve down or up. */
export function edgePath(a: Rect, b: Rect, self: boolean, others: readonly Rect[]): string {
  if (self) {
    const x = a.x + a.width - 18;
    return `M${x},${a.y} C${x - 10},${a.y - 22} ${x + 22},${a.y - 22} ${x + 12},${a.y}`;
  }
  if (Math.abs(a.y - b.y) < 1) {
    const [sx, ex] = [a.x + a.width / 2, b.x + b.width / 2];
    return `M${sx},${a.y} Q${(sx + ex) / 2},${a.y - 26} ${ex},${b.y}`;
  }
  const down = b.y > a.y;
  const [sx, sy] = [a.x + a.width / 2, down ? a.y + a.height : a.y];
  const [ex, ey] = [b.x + b.width / 2, down ? b.y : b.y + b.height];
  // A node between them (one column on a phone) would be crossed: go round its right instead.
  const [top, bottom] = [Math.min(sy, ey), Math.max(sy, ey)];
  const between = others.some(
    (r) =>
      r !== a && r !== b && r.y >= top - 1 && r.y + r.height <= bottom + 1 && r.x < Math.max(sx, ex) && r.x + r.width > Math.min(sx, ex),
  );
  if (between) {
    const [ay, by] = [a.y + a.height / 2, b.y + b.height / 2];
    const side = Math.max(a.x + a.width, b.x + b.width) + 16;
    return `M${a.x + a.width},${ay} C${side},${ay} ${side},${by} ${b.x + b.width},${by}`;
  }
  return `M${sx},${sy} C${sx},${(sy + ey) / 2} ${ex},${(sy + ey) / 2} ${ex},${ey}`;
}
