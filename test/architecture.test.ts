// Data flows one way (dns <- engine <- service); the store shares nothing with the DNS side.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';

const root = resolve(import.meta.dirname, '..');
const packagesDir = join(root, 'packages');

const allowed: Record<string, string[]> = {
  database: [],
  dns: [],
  engine: ['dns'],
  service: ['engine', 'dns', 'database'],
  lab: ['dns'],
  store: ['database'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    if (entry === 'node_modules' || entry === 'fixtures') return [];
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)].map((m) => m[1] ?? m[2] ?? '');
}

const packages = readdirSync(packagesDir).filter((name) => statSync(join(packagesDir, name)).isDirectory());

test('every package is known to the layering rules', () => {
  assert.deepEqual(packages.filter((name) => !(name in allowed)), []);
});

for (const name of packages) {
  test(`${name} depends only on what it may`, () => {
    const manifest = JSON.parse(readFileSync(join(packagesDir, name, 'package.json'), 'utf8')) as { name: string; dependencies?: Record<string, string> };
    assert.equal(manifest.name, `@app/${name}`);
    const declared = Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith('@app/')).map((d) => d.slice(5));
    assert.deepEqual(declared.filter((d) => !(allowed[name] ?? []).includes(d)), [], `${name} declares a dependency against the flow`);

    const dir = join(packagesDir, name);
    for (const file of sourceFiles(dir)) {
      for (const specifier of importsOf(file)) {
        const where = relative(root, file);
        if (specifier.startsWith('@app/')) {
          const target = specifier.slice(5).split('/')[0] ?? '';
          assert.ok(target === name || declared.includes(target), `${where} imports ${specifier}, not a declared dependency`);
        } else if (specifier.startsWith('.')) {
          const resolved = resolve(join(file, '..'), specifier);
          assert.ok(resolved.startsWith(dir + sep), `${where} reaches outside its package with ${specifier}`);
        }
      }
    }
  });
}
