// The Chain view's layout at the page's width: the chain model's zones handed to the engine's chain
// layout (served by the import map), which lays out `dnscheck --chain-svg`'s picture too.
import { layoutZones, type ChainLayout } from '@app/engine/chain-layout';
import type { ChainModel, ChainZoneView } from './chain-model.ts';

const idsOf = (zone: ChainZoneView, kinds: readonly string[]): string[] =>
  zone.nodes.filter((node) => kinds.includes(node.kind)).map((node) => node.id);

export function layoutChain(model: ChainModel, availableWidth: number, legendHeight: number, emptyZoneHeight: number): ChainLayout {
  const zones = model.zones.map((zone) => ({
    name: zone.name,
    heading: zone.node.id,
    keys: idsOf(zone, ['dnskey']),
    rrsets: idsOf(zone, ['rrset']),
    ds: idsOf(zone, ['ds', 'no-ds']),
  }));
  return layoutZones(zones, availableWidth, legendHeight, emptyZoneHeight);
}
