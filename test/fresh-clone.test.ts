// A clone passes its own tests: the committed repository, copied alone to a temporary folder (no sibling
// folders such as shared/), runs the tests that read the repository's data files, and the path check.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';

const root = resolve(import.meta.dirname, '..');

/** Tests that read files of the repository by a path relative to themselves; lab and browser tests have their own suites. */
function dataReadingTests(clone: string): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '*.test.ts'], { cwd: clone, encoding: 'utf8' }).split('\0');
  return listed.filter((file) => {
    if (file === '' || /lab|browser|newcomer-docs|fresh-clone/.test(file)) return false;
    const text = readFileSync(join(clone, file), 'utf8');
    return /\breadFile(?:Sync)?\(|\breaddirSync\(/.test(text) && /import\.meta\.(?:url|dirname)/.test(text);
  });
}

/**
 * The clone's node_modules: the installed packages of this working tree (no network in a test), except the
 * workspace links, which lead to the clone's own packages.
 */
function linkDependencies(clone: string): void {
  const modules = join(clone, 'node_modules');
  mkdirSync(join(modules, '@app'), { recursive: true });
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry !== '@app') symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
  }
  for (const name of readdirSync(join(clone, 'packages'))) {
    symlinkSync(join(clone, 'packages', name), join(modules, '@app', name));
    const own = join(root, 'packages', name, 'node_modules');
    if (existsSync(own)) symlinkSync(own, join(clone, 'packages', name, 'node_modules'));
  }
}

let clone: string;
before(() => {
  clone = join(mkdtempSync(join(tmpdir(), 'fresh-clone-')), 'repository');
  // What is committed is what a clone gets; files only in this working tree do not count.
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', root, clone], { stdio: ['ignore', 'ignore', 'pipe'] });
  linkDependencies(clone);
});
after(() => {
  if (clone !== undefined) rmSync(resolve(clone, '..'), { recursive: true, force: true });
});

test('the clone stands alone: nothing beside it', () => {
  assert.deepEqual(readdirSync(resolve(clone, '..')), ['repository']);
});

test('the tests that read data files, and the path check, pass in the clone', { timeout: 300_000 }, () => {
  const files = dataReadingTests(clone);
  assert.ok(files.includes('packages/store/test/platform-surface.test.ts'), `the platform facts test is among ${files.join(', ')}`);
  const run = spawnSync(
    process.execPath,
    ['--test', '--test-concurrency=2', '--test-reporter=dot', 'test/repository-bounds.test.ts', ...files],
    {
      cwd: clone,
      encoding: 'utf8',
      env: { ...process.env, NODE_TEST_CONTEXT: undefined },
      timeout: 280_000,
    },
  );
  const summary = `${files.length + 1} files in ${clone}:\n${run.stdout.slice(-4000)}\n${run.stderr.slice(-2000)}`;
  assert.equal(run.status, 0, summary);
});
