// Fields kept encrypted at rest (a declaration's `encrypted: true`): their names, which routes' answers
// can hold one, and an answer as shown to a caller who may read them, or may not.
import type { ResourceDeclaration } from './declaration.ts';

export interface EncryptedFields {
  /** Names of the fields any resource keeps encrypted. */
  readonly names: ReadonlySet<string>;
  /** False for a route resource whose answers can hold no encrypted field, so they skip the walk. */
  mayCarry(resource: string): boolean;
}

export function encryptedFields(all: readonly ResourceDeclaration[]): EncryptedFields {
  const byName = new Map(all.map((r) => [r.name, r]));
  const names = new Set(
    all.flatMap((r) =>
      Object.entries(r.fields)
        .filter(([, f]) => f.encrypted === true)
        .map(([name]) => name),
    ),
  );
  const hasEncrypted = (name: string) => Object.values(byName.get(name)?.fields ?? {}).some((f) => f.encrypted === true);
  // A route's answer holds its resource, its nested collections (nested routes) and theirs (expand= on those).
  const reachable = (name: string, depth: number): boolean =>
    hasEncrypted(name) || (depth > 0 && Object.values(byName.get(name)?.nested ?? {}).some((n) => reachable(n.resource, depth - 1)));
  const carriers = new Set(all.filter((r) => reachable(r.name, 2)).map((r) => r.name));
  return { names, mayCarry: (resource) => carriers.has(resource) };
}

/** Decrypts, or drops, the encrypted fields of every object in an answer, however deeply expanded. */
export function revealOrDrop(
  value: unknown,
  fields: ReadonlySet<string>,
  reveal: ((stored: string) => string | undefined) | undefined,
  depth = 0,
): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => revealOrDrop(item, fields, reveal, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (!fields.has(key)) out[key] = revealOrDrop(item, fields, reveal, depth + 1);
    else if (reveal !== undefined) out[key] = typeof item === 'string' ? (reveal(item) ?? null) : item;
  }
  return out;
}
