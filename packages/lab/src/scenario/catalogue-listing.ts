// `lab list`: every catalogue scenario with the domain it serves and what is wrong with it, in columns.
import { readFileSync } from 'node:fs';
import { catalogueNames, parseScenarioText, resolveScenarioPath } from './load-scenario.ts';
import { commandLineDomain } from './command-line-domain.ts';

export interface CatalogueEntry {
  name: string;
  /** As a command line takes it (`healthy.test`, the root `.`). */
  domain: string;
  description: string;
}

export function catalogueEntries(): CatalogueEntry[] {
  return catalogueNames().map((name) => {
    const path = resolveScenarioPath(name);
    const file = parseScenarioText(readFileSync(path, 'utf8'), path);
    return { name, domain: commandLineDomain(file.domain ?? ''), description: file.description ?? '' };
  });
}

export function catalogueListing(entries = catalogueEntries()): string[] {
  const nameWidth = Math.max(...entries.map((e) => e.name.length));
  const domainWidth = Math.max(...entries.map((e) => e.domain.length));
  return entries.map((e) => `${e.name.padEnd(nameWidth)}  ${e.domain.padEnd(domainWidth)}  ${e.description}`.trimEnd());
}
