// What a newcomer meets on a fresh clone: every relative link in the README, docs/ and the package READMEs
// leads to a file (and heading) of the clone itself, every repository path they write in backticks is there, and the Node the README names installs every
// dependency without an engine warning.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { after, before, describe, test } from 'node:test';
import semver from 'semver';

const root = resolve(import.meta.dirname, '..');

/** The Markdown files a reader follows links from. */
function markdownFiles(clone: string): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(dir).flatMap((entry) => {
      const path = join(dir, entry);
      return statSync(path).isDirectory() ? docs(path) : entry.endsWith('.md') ? [path] : [];
    });
  const packages = readdirSync(join(clone, 'packages'))
    .map((name) => join(clone, 'packages', name, 'README.md'))
    .filter((path) => existsSync(path));
  return [join(clone, 'README.md'), ...docs(join(clone, 'docs')), ...packages];
}

/** Link targets outside code: inline `[text](target)` links and `[label]: target` definitions. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map(
    (m) => m[1] ?? '',
  );
}

/** GitHub's anchor for a heading. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return new Set([...prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((m) => slug(m[1] ?? '')));
}

/**
 * Where a backticked token may be in the repository, or none when it is no path: one that starts at a top
 * folder of the repository, or in a package's README at a folder of that package (or of the repository:
 * `test/` is both). Placeholders (`<module>`, `*`, `...`) and a `:line` or `#anchor` suffix are not paths;
 * `dist/` is built by `npm install`, not committed.
 */
function repositoryPaths(token: string, inPackage: string | undefined): string[] {
  if (/[<>*{}…]|\.\.\.|\$|=/.test(token)) return [];
  const path = token.replace(/[:#].*$/, '').replace(/[.,;]$/, '');
  const top = /^(packages|docs|test|bench|scripts|\.ci)\//.test(path) && !/^packages\/[^/]+\/dist\//.test(path) ? [path] : [];
  const own = inPackage !== undefined && /^(src|test|bin|scripts|scenarios)\//.test(path) ? [`${inPackage}${path}`] : [];
  return [...own, ...top];
}

describe('a fresh clone', () => {
  let clone: string;
  before(() => {
    clone = mkdtempSync(join(tmpdir(), 'newcomer-clone-'));
    // What is committed is what a newcomer gets; files only in this working tree do not count.
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', root, clone], { stdio: ['ignore', 'ignore', 'pipe'] });
  });
  after(() => {
    if (clone !== undefined) rmSync(clone, { recursive: true, force: true });
  });

  test('every relative link in README.md, docs/ and the package READMEs resolves inside the clone', () => {
    const files = markdownFiles(clone);
    assert.ok(
      files.some((f) => f.endsWith(`${sep}docs${sep}getting-started.md`)),
      'docs/getting-started.md is committed',
    );
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const target of linkTargets(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
        checked++;
        const [pathPart = '', anchor] = target.split('#');
        const where = `${relative(clone, file)} -> ${target}`;
        const destination = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
        if (relative(clone, destination).startsWith('..')) {
          broken.push(`${where} (outside the repository)`);
          continue;
        }
        if (!existsSync(destination)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (
          anchor !== undefined &&
          anchor !== '' &&
          destination.endsWith('.md') &&
          !anchors(readFileSync(destination, 'utf8')).has(anchor)
        ) {
          broken.push(`${where} (no such heading)`);
        }
      }
    }
    assert.ok(checked >= 20, `only ${checked} relative links found: is the link pattern still right?`);
    assert.deepEqual(broken, []);
  });

  test('every repository path written in backticks names a file or folder of the clone', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const file of markdownFiles(clone)) {
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
      const inPackage = /^packages\/[^/]+\//.exec(relative(clone, file).split(sep).join('/'))?.[0];
      for (const [, token = ''] of text.matchAll(/`([^`\s]+)`/g)) {
        const paths = repositoryPaths(token, inPackage);
        if (paths.length === 0) continue;
        checked++;
        if (!paths.some((path) => existsSync(join(clone, path)))) missing.push(`${relative(clone, file)}: \`${token}\``);
      }
    }
    assert.ok(checked >= 50, `only ${checked} paths in backticks found: is the pattern still right?`);
    assert.deepEqual(missing, []);
  });

  test('nothing points into shared/, which a clone does not have', () => {
    const mentions = markdownFiles(clone).filter((file) => /\bshared\/(spec|reference|ARCHITECTURE)/.test(readFileSync(file, 'utf8')));
    assert.deepEqual(
      mentions.map((f) => relative(clone, f)),
      [],
    );
  });

  test('the README names one Node, and it installs every locked package without an engine warning', () => {
    const readme = readFileSync(join(clone, 'README.md'), 'utf8');
    const named = [...readme.matchAll(/Node(?:\.js)? (\d+) \((\d+\.\d+) or later\)/g)];
    assert.equal(named.length, 1, 'the README states the Node requirement once, as "Node.js N (N.M or later)"');
    const [, major = '', minimum = ''] = named[0] ?? [];
    assert.doesNotMatch(readme, /any Node from/);
    assert.equal(readFileSync(join(clone, '.nvmrc'), 'utf8').trim(), major, '.nvmrc names the same major');

    const manifest = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as {
      engines: { node: string };
      devDependencies: Record<string, string>;
    };
    const pinned = semver.minVersion(manifest.devDependencies.node ?? '')?.version;
    assert.ok(
      pinned !== undefined && semver.major(pinned) === Number(major),
      'the node devDependency the scripts run on is the named major',
    );
    const lock = JSON.parse(readFileSync(join(clone, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string } | string[] }>;
    };
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const wanted = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (wanted === undefined) continue;
      // npm warns when the running Node does not satisfy a package's engines.node: the oldest Node the README allows
      // and the one the scripts run on must both satisfy every package.
      for (const version of [`${minimum}.0`, pinned]) {
        if (!semver.satisfies(version, wanted))
          refusing.push(`${path === '' ? 'the root package' : path} wants node ${wanted}, not ${version}`);
      }
    }
    assert.deepEqual(refusing, []);
  });
});
