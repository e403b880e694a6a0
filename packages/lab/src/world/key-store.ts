// The keys the lab makes are kept in the repository (packages/lab/keys), so a world has the same key
// tags and DS records on every machine, and findings that name them can be compared with a recorded
// reference run. A key is made once, by the first build that needs it; later builds copy it.
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const keyStoreDir = resolve(import.meta.dirname, '../../keys');

/** The stored key pairs' paths, sorted: part of the world cache's key, so a build follows the store. */
export function keyStoreListing(): string[] {
  if (!existsSync(keyStoreDir)) return [];
  return readdirSync(keyStoreDir, { recursive: true, encoding: 'utf8' }).sort();
}

/**
 * Copies a key pair (Kname+alg+tag.key/.private) from one folder to another, as a key of `owner`
 * (the key tag does not depend on the owner; the zone tools want files named for the zone they sign);
 * returns its base name.
 */
function copyPair(from: string, to: string, owner: string): string {
  const files = readdirSync(from).filter((f) => f.endsWith('.key') || f.endsWith('.private'));
  const base = files.find((f) => f.endsWith('.key'))?.slice(0, -'.key'.length);
  if (base === undefined || !files.includes(`${base}.private`)) throw new Error(`the key store's ${from} holds no key pair`);
  const named = `K${owner}${base.slice(base.lastIndexOf('+', base.lastIndexOf('+') - 1))}`;
  const keyText = readFileSync(join(from, `${base}.key`), 'utf8');
  writeFileSync(join(to, `${named}.key`), keyText.replace(/^[^;\s]\S*/gm, owner));
  copyFileSync(join(from, `${base}.private`), join(to, `${named}.private`));
  return named;
}

/**
 * The key for `slot` (its role in the zone, e.g. 'ksk0', with algorithm and size) in `keyDir`: the
 * stored one, or one `make` makes there and the store keeps. Two builds racing for a new key both
 * end up with the one stored first.
 */
export async function storedKey(
  zoneLabel: string,
  slot: string,
  keyDir: string,
  owner: string,
  make: () => Promise<string>,
): Promise<string> {
  const stored = join(keyStoreDir, zoneLabel, slot);
  if (existsSync(stored)) return copyPair(stored, keyDir, owner);
  const made = await make();
  const staging = `${stored}.${randomBytes(4).toString('hex')}`;
  mkdirSync(staging, { recursive: true });
  for (const suffix of ['.key', '.private']) copyFileSync(join(keyDir, made + suffix), join(staging, made + suffix));
  try {
    renameSync(staging, stored);
    return made;
  } catch {
    rmSync(staging, { recursive: true, force: true });
    for (const suffix of ['.key', '.private']) rmSync(join(keyDir, made + suffix), { force: true });
    return copyPair(stored, keyDir, owner);
  }
}
