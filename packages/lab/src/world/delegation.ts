// Where zones sit in the tree: which zone is whose parent, and what the parent must say about a
// child (NS, glue, DS) so the scenario author writes only each zone's own data.
export function isAtOrBelow(name: string, origin: string): boolean {
  return origin === '.' || name === origin || name.endsWith(`.${origin}`);
}

/** The closest enclosing origin among `origins`, other than the name itself. */
export function parentOrigin(origin: string, origins: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const candidate of origins) {
    if (candidate === origin || !isAtOrBelow(origin, candidate)) continue;
    if (best === undefined || candidate.length > best.length) best = candidate;
  }
  return best;
}

/** Breaks a DS on purpose: a different digest, or a key tag that matches no key. */
export function spoilDs(dsLine: string, mode: 'wrong-digest' | 'wrong-keytag'): string {
  const parts = dsLine.trim().split(/\s+/);
  // owner [ttl] IN DS keytag algorithm digesttype digest
  const ds = parts.indexOf('DS');
  if (ds < 0 || parts.length < ds + 5) throw new Error(`not a DS record: ${dsLine}`);
  if (mode === 'wrong-keytag') {
    parts[ds + 1] = String((Number(parts[ds + 1]) + 1) % 65536);
  } else {
    const digest = parts.slice(ds + 4).join('');
    parts.splice(ds + 4, parts.length, [...digest].map((c) => (c === 'A' ? 'B' : 'A')).join(''));
  }
  return parts.join(' ');
}
