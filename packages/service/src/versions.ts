// Versions reported by version_info: our own package and the DNS library we depend on.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function packageVersion(manifestUrl: URL): string {
  try {
    return (JSON.parse(readFileSync(fileURLToPath(manifestUrl), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function serviceVersion(): string {
  return packageVersion(new URL('../package.json', import.meta.url));
}

export function dnsLibraryVersion(): string {
  // The entry point is src/index.ts, so the manifest is two levels up.
  return packageVersion(new URL('../package.json', new URL('.', import.meta.resolve('@app/dns'))));
}
