// A variant scenario (`variantOf`): another scenario's own servers and zones again, under a domain and
// addresses of its own, so both can share one world (the whole catalogue) and the reference's
// recorded runs, which are kept per domain, stay apart. Typically served by another implementation.
import type { ScenarioFile } from './scenario-format.ts';

export class VariantError extends Error {
  override name = 'VariantError';
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `variant` with `source`'s servers and zones copied in: names at or below the source's domain moved
 * below the variant's, addresses mapped through `variant.addresses`. `sourceExtends` are the source's
 * `extends`, already resolved to paths (they are relative to the source's file, not the variant's).
 */
export function deriveVariant(variant: ScenarioFile, source: ScenarioFile, sourceExtends: string[], where: string): ScenarioFile {
  const from = source.domain;
  const to = variant.domain;
  if (from === undefined || to === undefined)
    throw new VariantError(`${where}: a variant and the scenario it copies (${variant.variantOf}) must both name a domain`);
  if (variant.servers.length > 0 || variant.zones.length > 0 || variant.extends !== undefined) {
    throw new VariantError(`${where}: a variant copies its scenario's servers, zones and extends; it cannot add its own`);
  }
  if (from === '.') throw new VariantError(`${where}: the root zone cannot be copied`);
  const map = new Map(Object.entries(variant.addresses ?? {}).map(([a, b]) => [a.toLowerCase(), b]));
  const used = new Set<string>();
  const address = (a: string): string => {
    const mapped = map.get(a.toLowerCase());
    if (mapped === undefined) throw new VariantError(`${where}: addresses has no new address for ${a} (a server of ${variant.variantOf})`);
    used.add(a.toLowerCase());
    return mapped;
  };
  const name = (n: string): string => (n === from || n.endsWith(`.${from}`) ? n.slice(0, n.length - from.length) + to : n);
  // Absolute names in zone text (with their final dot), in any case, and whole address tokens.
  const absolute = new RegExp(`(?<![A-Za-z0-9_.*-])((?:[A-Za-z0-9_*-]+\\.)*)${escapeRegExp(from)}(?![A-Za-z0-9_-])`, 'gi');
  const text = (t: string): string => {
    let out = t.replace(absolute, (_, prefix: string) => `${prefix}${to}`);
    for (const [old, replacement] of map)
      out = out.replace(new RegExp(`(?<![0-9A-Fa-f:.])${escapeRegExp(old)}(?![0-9A-Fa-f:.])`, 'gi'), () => replacement);
    return out;
  };
  const derived: ScenarioFile = {
    ...variant,
    extends: sourceExtends.length === 0 ? undefined : sourceExtends,
    servers: source.servers.map((server) => ({
      ...server,
      name: name(server.name),
      aliases: server.aliases.map(name),
      addresses: server.addresses.map(address),
      behaviour: {
        ...server.behaviour,
        ...(server.behaviour.answerFrom !== undefined && { answerFrom: address(server.behaviour.answerFrom) }),
        ...(server.behaviour.answerName !== undefined && { answerName: name(server.behaviour.answerName) }),
      },
    })),
    zones: source.zones.map((zone) => ({
      ...zone,
      origin: name(zone.origin),
      servers: zone.servers.map(name),
      text: text(zone.text),
      parent: { ...zone.parent, ...(zone.parent.ns !== undefined && { ns: zone.parent.ns.map(name) }) },
      ...(zone.dnssec !== undefined && { keysFrom: zone.keysFrom ?? zone.origin }),
    })),
    implementation: variant.implementation ?? source.implementation,
  };
  const unused = [...map.keys()].filter((a) => !used.has(a));
  if (unused.length > 0)
    throw new VariantError(`${where}: addresses maps ${unused.join(', ')}, which no server of ${variant.variantOf} has`);
  return derived;
}
