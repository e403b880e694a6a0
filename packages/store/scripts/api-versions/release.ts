// `npm run api:release -- YYYY-MM-DD [--replace]`: commits the served OpenAPI document as that version's
// (packages/store/api-versions/<date>.json) and writes docs/store-api-changelog.md from all of them. The date must
// first be added to API_VERSIONS (model/api-versions.ts); --replace rewrites the newest version's document, for a
// change made before that version was published.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openApiDocument } from '../../src/api-docs/openapi.ts';
import { NEWEST_API_VERSION } from '../../src/model/api-versions.ts';
import { CHANGELOG_FILE, RELEASED_DIR, changelog } from './changelog.ts';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { replace: { type: 'boolean', default: false } } });
const date = positionals[0];
if (date === undefined || positionals.length !== 1) {
  console.error('usage: npm run api:release -- YYYY-MM-DD [--replace]');
  process.exit(2);
}
if (date !== NEWEST_API_VERSION) {
  console.error(
    `${date} is not the newest version in packages/store/src/model/api-versions.ts (${NEWEST_API_VERSION}): add it there first`,
  );
  process.exit(1);
}
const file = join(RELEASED_DIR, `${date}.json`);
if (existsSync(file) && !values.replace) {
  console.error(`${file} exists; --replace rewrites it (only before ${date} is published)`);
  process.exit(1);
}
// One line, as the served document: the file is read by tools, never edited.
writeFileSync(file, `${JSON.stringify(openApiDocument())}\n`);
writeFileSync(CHANGELOG_FILE, changelog());
console.log(`wrote ${file} and ${CHANGELOG_FILE}`);
