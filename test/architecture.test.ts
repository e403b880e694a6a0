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

// The store's folders, one way only: each may import the folders listed (and itself), none that lists it.
// From the bottom: the data model, the database, records (SQL), request plumbing, then the plugins and
// routes, and api-docs on top. app.ts, server.ts and index.ts at src/'s top compose them; cli/ runs them.
const storeFolderRules: Readonly<Record<string, readonly string[]>> = {
  model: [],
  accounts: [],
  limits: ['model'],
  db: ['model', 'accounts', 'limits'],
  records: ['model', 'db'],
  http: ['model', 'db'],
  auth: ['model', 'db', 'accounts', 'limits', 'http'],
  idempotency: ['model', 'db', 'http', 'auth'],
  cache: ['model', 'limits'],
  webhooks: ['model', 'db', 'records', 'http', 'auth'],
  resources: ['model', 'db', 'records', 'http'],
  carts: ['model', 'db', 'records', 'http', 'resources', 'webhooks'],
  console: ['model', 'db', 'records', 'http', 'auth', 'limits', 'webhooks'],
  'api-docs': ['model', 'http', 'auth', 'resources', 'carts', 'idempotency'],
  cli: ['*'],
};

/** Every import in `src` from one folder into another that `rules` does not allow, as "from -> to (file)". */
function wrongWayImports(src: string, rules: Readonly<Record<string, readonly string[]>>): string[] {
  const folderOf = (path: string): string => {
    const parts = relative(src, path).split(sep);
    return parts.length > 1 ? (parts[0] ?? '') : '';
  };
  const wrong: string[] = [];
  for (const file of sourceFiles(src)) {
    const from = folderOf(file);
    // Files at the top of src/ compose the folders.
    if (from === '') continue;
    const may = rules[from];
    for (const specifier of importsOf(file)) {
      if (!specifier.startsWith('.')) continue;
      const to = folderOf(resolve(join(file, '..'), specifier));
      if (to === from || may?.includes('*') === true) continue;
      if (may === undefined || !may.includes(to)) wrong.push(`${from} -> ${to === '' ? 'src/' : to} (${relative(src, file)} imports ${specifier})`);
    }
  }
  return wrong;
}

test('every store folder has a rule, and the rules point one way', () => {
  const src = join(packagesDir, 'store', 'src');
  const folders = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory());
  assert.deepEqual(folders.filter((name) => !(name in storeFolderRules)), [], 'a new store folder needs its rule here');
  // Each folder's rule names only folders listed before it: the order above is the layering.
  const order = Object.keys(storeFolderRules);
  for (const [folder, may] of Object.entries(storeFolderRules)) {
    for (const lower of may) if (lower !== '*') assert.ok(order.indexOf(lower) < order.indexOf(folder), `${folder} may import ${lower}, listed after it`);
  }
});

test('store folders import only the folders below them', () => {
  assert.deepEqual(wrongWayImports(join(packagesDir, 'store', 'src'), storeFolderRules), []);
});

test('the store folder rules catch a wrong-way import (fixture)', () => {
  const fixture = join(root, 'test', 'fixtures', 'store-wrong-way', 'src');
  assert.deepEqual(wrongWayImports(fixture, storeFolderRules), ['model -> resources (model/declaration.ts imports ../resources/routes.ts)']);
});

// Benchmarks use a package as its users do, through the entry points its package.json exports, so a move inside a
// package never breaks them. The store's benchmarks first; the others join as they are moved over.
const benchesOnEntryPoints = ['store', 'store-auth'];

test('the store benchmarks import only packages\' exported entry points', () => {
  for (const bench of benchesOnEntryPoints) {
    const dir = join(root, 'bench', bench);
    for (const file of sourceFiles(dir)) {
      for (const specifier of importsOf(file)) {
        const where = relative(root, file);
        if (specifier.startsWith('.')) {
          assert.ok(resolve(join(file, '..'), specifier).startsWith(dir + sep), `${where} reaches outside its folder with ${specifier}`);
        } else if (specifier.startsWith('@app/')) {
          const [name = '', ...rest] = specifier.slice(5).split('/');
          const manifest = JSON.parse(readFileSync(join(packagesDir, name, 'package.json'), 'utf8')) as { exports?: Record<string, string> };
          const entry = rest.length === 0 ? '.' : `./${rest.join('/')}`;
          assert.ok(manifest.exports?.[entry] !== undefined, `${where} imports ${specifier}, which @app/${name} does not export`);
        }
      }
    }
  }
});
