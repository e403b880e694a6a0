// The API's changelog, made from the documents released under each version date (packages/store/api-versions/):
// each version's changes against the one before it, breaking ones first, a change shared by many operations once.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_VERSIONS } from '../../src/model/api-versions.ts';
import { documentChanges, type DocumentChange } from './document-changes.ts';

export const RELEASED_DIR = join(import.meta.dirname, '..', '..', 'api-versions');
export const CHANGELOG_FILE = join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'store-api-changelog.md');

type Json = Record<string, unknown>;

/** The dates whose documents are committed, oldest first. */
export function releasedDates(): string[] {
  return readdirSync(RELEASED_DIR)
    .filter((name) => /^\d{4}-\d{2}-\d{2}\.json$/.test(name))
    .map((name) => name.slice(0, 10))
    .sort();
}

export function releasedDocument(date: string): Json {
  return JSON.parse(readFileSync(join(RELEASED_DIR, `${date}.json`), 'utf8')) as Json;
}

const SHOWN = 5;

/** One line per change text, naming the operations it touches (the first few, then how many more). */
function lines(changes: DocumentChange[]): string[] {
  const byWhat = new Map<string, string[]>();
  for (const change of changes) byWhat.set(change.what, [...(byWhat.get(change.what) ?? []), change.operation]);
  return [...byWhat]
    .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
    .map(([what, operations]) => {
      const named = operations.slice(0, SHOWN).map((o) => `\`${o}\``);
      const more = operations.length > SHOWN ? ` and ${operations.length - SHOWN} more` : '';
      return `- ${what}: ${named.join(', ')}${more}`;
    });
}

function operationCount(document: Json): { operations: number; paths: number } {
  const paths = Object.values((document.paths ?? {}) as Record<string, Json>);
  const methods = ['get', 'put', 'post', 'delete', 'patch'];
  return { paths: paths.length, operations: paths.reduce((sum, item) => sum + methods.filter((m) => item[m] !== undefined).length, 0) };
}

export function changelog(dates: readonly string[] = releasedDates()): string {
  const out = [
    '# Store API changelog',
    '',
    'Made by `npm run api:release -- YYYY-MM-DD` from the OpenAPI document released under each version date',
    '(`packages/store/api-versions/`); `packages/store/test/api-changes.test.ts` fails when this file is not what',
    'they give, and when the served document breaks a client of the newest version. A request names its version in',
    '`X-AC-Api-Version` ([the reference](store-api.md#versions)). Newest first.',
  ];
  const sections: string[][] = [];
  let previous: Json | undefined;
  for (const date of dates) {
    const document = releasedDocument(date);
    const summary = API_VERSIONS.find((v) => v.date === date)?.summary ?? '';
    const section = ['', `## ${date}`, '', summary];
    if (previous === undefined) {
      const { operations, paths } = operationCount(document);
      section.push('', `${operations} operations on ${paths} paths.`);
    } else {
      const changes = documentChanges(previous, document);
      const breaking = changes.filter((c) => c.breaking);
      const other = changes.filter((c) => !c.breaking);
      if (breaking.length > 0) section.push('', '### Breaking', '', ...lines(breaking));
      if (other.length > 0) section.push('', '### Other changes', '', ...lines(other));
      if (changes.length === 0) section.push('', 'No change to the document.');
    }
    sections.unshift(section);
    previous = document;
  }
  return [...out, ...sections.flat(), ''].join('\n');
}
