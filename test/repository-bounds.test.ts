// No source, test or script reads a path outside the repository: a clone holds only the repository.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { pathsLeavingIn, pathsLeavingRepository, repositoryCodeFiles } from './support/paths-leaving-repository.ts';

const root = resolve(import.meta.dirname, '..');

test('no source, test or script names a path that climbs out of the repository', () => {
  const files = repositoryCodeFiles(root);
  assert.ok(files.length > 300, `only ${files.length} code files listed: is git ls-files still reading this repository?`);
  assert.ok(files.includes('package.json') && files.includes('.ci/run'), 'package.json scripts and .ci/run are checked too');
  const leaving = pathsLeavingRepository(root, files).map((p) => `${p.file}:${p.line} ${p.path}`);
  assert.deepEqual(leaving, []);
});

// The check catches what a clone would trip over, and leaves paths inside the repository alone.
// Built from pieces, so that this file itself names no such path.
const up = (levels: number): string => '../'.repeat(levels);
const outside = `${up(1)}shared`;
const cases: [file: string, text: string, leaves: boolean][] = [
  ['packages/store/test/a.test.ts', `readFileSync(new URL('${up(4)}shared/reference/x.json', import.meta.url))`, true],
  ['packages/store/test/a.test.ts', `readFileSync(new URL('../reference/x.json', import.meta.url))`, false],
  ['test/a.test.ts', `const facts = resolve(import.meta.dirname, '${up(1).slice(0, 2)}', '${up(1).slice(0, 2)}', 'facts.json');`, true],
  ['test/a.test.ts', `const root = resolve(import.meta.dirname, '..');`, false],
  ['bench/x/run.ts', `const bin = join(import.meta.dirname, '${up(3)}elsewhere/bin.ts');`, true],
  ['bench/x/run.ts', `import { y } from '${up(3)}y.ts';`, true],
  ['bench/x/run.ts', `import { y } from '../../packages/dns/src/index.ts';`, false],
  ['packages/dns/src/a.ts', `const spec = await import('${up(4)}spec.ts');`, true],
  ['scripts/a.ts', `readFileSync('/wo' + 'rk/x')`, false],
  ['scripts/a.ts', `readFileSync(${JSON.stringify('/' + 'work/shared/reference/x.json')})`, true],
  ['scripts/a.ts', `readFileSync(${JSON.stringify(outside + '/spec/x.md')})`, true],
  // A folder of the repository that happens to be called shared/, reached from a file's own folder.
  ['packages/service/src/watch/a.ts', `import { x } from '${outside}/languages.ts';`, false],
  ['packages/service/src/watch/a.ts', `readFileSync(new URL(\`${outside}/locales/\${lang}.json\`, import.meta.url))`, false],
  ['packages/service/a.ts', `readFileSync(new URL(\`${up(3)}shared/locales/\${lang}.json\`, import.meta.url))`, true],
  ['package.json', `{ "scripts": { "facts": "node ${up(1)}tools/facts.js" } }`, true],
  ['packages/lab/package.json', `{ "scripts": { "x": "node ../../scripts/x.ts" } }`, false],
  ['.ci/run', `cd "$(dirname "$0")/.."\nnpm test`, false],
  ['.ci/run', `cp ${up(1)}secrets/key .`, true],
];
for (const [file, text, leaves] of cases) {
  test(`${leaves ? 'flags' : 'accepts'} ${file}: ${text.split('\n')[0] ?? ''}`, () => {
    assert.equal(pathsLeavingIn(root, file, text).length > 0, leaves);
  });
}
