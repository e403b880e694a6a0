// The dnscheck bundle (scripts/bundle-cli.ts) is a start-up cache: it counts only while no file
// it was made from has changed since its build started. Otherwise (or without one) the sources run.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The bundle's entry in `dir` when it is fresh, else undefined. */
export function freshBundle(dir) {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    const stale = manifest.inputs.some((input) => statSync(join(dir, input)).mtimeMs > manifest.started);
    return stale ? undefined : join(dir, manifest.entry);
  } catch {
    return undefined;
  }
}
