// Data flows one way (dns <- engine <- service); the store shares nothing with the DNS side.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { folderRuleBreaches, importCircles, importsOf, ruleCircles, sourceFiles, type Unit } from './support/import-rules.ts';

const root = resolve(import.meta.dirname, '..');
const packagesDir = join(root, 'packages');

const allowed: Record<string, string[]> = {
  database: [],
  'outbound-address': [],
  dns: [],
  engine: ['dns'],
  service: ['engine', 'dns', 'database', 'outbound-address'],
  lab: ['dns'],
  store: ['database', 'outbound-address'],
};

const packages = readdirSync(packagesDir).filter((name) => statSync(join(packagesDir, name)).isDirectory());

test('every package is known to the layering rules', () => {
  assert.deepEqual(
    packages.filter((name) => !(name in allowed)),
    [],
  );
});

for (const name of packages) {
  test(`${name} depends only on what it may`, () => {
    const manifest = JSON.parse(readFileSync(join(packagesDir, name, 'package.json'), 'utf8')) as {
      name: string;
      dependencies?: Record<string, string>;
    };
    assert.equal(manifest.name, `@app/${name}`);
    const declared = Object.keys(manifest.dependencies ?? {})
      .filter((d) => d.startsWith('@app/'))
      .map((d) => d.slice(5));
    assert.deepEqual(
      declared.filter((d) => !(allowed[name] ?? []).includes(d)),
      [],
      `${name} declares a dependency against the flow`,
    );

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

// ---- Inside the DNS side's packages: folder rules (docs/architecture.md draws them) ----
// Each unit is a folder of src/ (or files kept apart from their folder) and lists what it may import;
// the rules point one way, lower units first. index.ts is the package's door and may import anything.

const dnsUnits: Unit[] = [
  { unit: 'basics', holds: ['base32hex.ts', 'constants.ts', 'idna.ts', 'name.ts', 'version.ts'], mayImport: [] },
  { unit: 'wire', mayImport: ['basics'] },
  { unit: 'zone-file', mayImport: ['basics', 'wire'] },
  { unit: 'dnssec', mayImport: ['basics', 'wire'] },
  { unit: 'transport', mayImport: ['basics', 'wire'] },
  { unit: 'index', holds: ['index.ts'], mayImport: ['*'] },
];

const engineUnits: Unit[] = [
  { unit: 'basics', holds: ['level.ts', 'finding.ts', 'domain-name-fault.ts', 'version.ts'], mayImport: [] },
  { unit: 'profile', mayImport: ['basics'] },
  { unit: 'input', holds: ['input.ts'], mayImport: ['profile'] },
  { unit: 'catalogue', mayImport: ['basics'] },
  { unit: 'rules', mayImport: ['basics', 'profile'] },
  { unit: 'net', mayImport: ['profile'] },
  { unit: 'resolver', mayImport: ['basics', 'net'] },
  { unit: 'chain', mayImport: ['net'] },
  { unit: 'zone', mayImport: ['basics', 'input', 'net', 'resolver'] },
  { unit: 'framework', mayImport: ['basics', 'profile', 'zone'] },
  { unit: 'checks', mayImport: ['basics', 'profile', 'rules', 'net', 'zone', 'framework'] },
  { unit: 'run', mayImport: ['basics', 'input', 'profile', 'net', 'resolver', 'zone', 'framework', 'checks', 'chain'] },
  { unit: 'lookups', mayImport: ['basics', 'input', 'profile', 'net', 'resolver', 'zone'] },
  { unit: 'cli', mayImport: ['basics', 'input', 'profile', 'catalogue', 'net', 'resolver', 'chain', 'run'] },
  { unit: 'index', holds: ['index.ts'], mayImport: ['*'] },
];

const serviceUnits: Unit[] = [
  // What the browser and the server both read: languages and texts, the report's model, the API's shapes.
  { unit: 'shared', mayImport: [] },
  { unit: 'web-client', holds: ['web/client'], mayImport: ['shared'] },
  { unit: 'web', mayImport: ['shared'] },
  { unit: 'basics', holds: ['test-case.ts', 'versions.ts'], mayImport: [] },
  { unit: 'schedules', mayImport: [] },
  { unit: 'config', mayImport: ['shared'] },
  { unit: 'engine-adapter', holds: ['engine-adapter.ts'], mayImport: ['config'] },
  { unit: 'validation', mayImport: ['shared', 'schedules'] },
  { unit: 'db', mayImport: ['validation', 'schedules'] },
  { unit: 'rpc', mayImport: ['db', 'validation'] },
  { unit: 'metrics', mayImport: ['db', 'rpc'] },
  { unit: 'alerts', mayImport: ['config'] },
  { unit: 'watch', mayImport: ['basics', 'config', 'db', 'engine-adapter', 'validation', 'schedules', 'shared', 'alerts'] },
  {
    unit: 'methods',
    mayImport: ['basics', 'config', 'db', 'engine-adapter', 'rpc', 'validation', 'watch', 'schedules', 'shared', 'alerts'],
  },
  { unit: 'agent', mayImport: ['basics', 'config', 'db', 'engine-adapter', 'metrics', 'rpc', 'watch'] },
  {
    unit: 'app',
    holds: ['app.ts'],
    mayImport: ['basics', 'config', 'db', 'engine-adapter', 'methods', 'metrics', 'rpc', 'validation', 'web'],
  },
  // Commands sit on top: each starts a part of the service from the command line.
  {
    unit: 'commands',
    mayImport: [
      'agent',
      'app',
      'config',
      'db',
      'engine-adapter',
      'methods',
      'metrics',
      'rpc',
      'validation',
      'watch',
      'schedules',
      'shared',
      'alerts',
    ],
  },
  { unit: 'index', holds: ['index.ts'], mayImport: ['*'] },
];

// The store, from the bottom: the data model, the database, records (SQL), request plumbing, then the
// plugins and routes, and api-docs on top. The files at src/'s top compose them; cli/ runs them.
const storeUnits: Unit[] = [
  { unit: 'model', mayImport: [] },
  { unit: 'accounts', mayImport: [] },
  { unit: 'limits', mayImport: ['model'] },
  { unit: 'db', mayImport: ['model', 'accounts', 'limits'] },
  { unit: 'records', mayImport: ['model', 'db'] },
  { unit: 'http', mayImport: ['model', 'db'] },
  { unit: 'auth', mayImport: ['model', 'db', 'accounts', 'limits', 'http'] },
  { unit: 'idempotency', mayImport: ['model', 'db', 'http', 'auth'] },
  { unit: 'cache', mayImport: ['model', 'limits'] },
  { unit: 'webhooks', mayImport: ['model', 'db', 'records', 'http', 'auth'] },
  { unit: 'resources', mayImport: ['model', 'db', 'records', 'http'] },
  { unit: 'carts', mayImport: ['model', 'db', 'records', 'http', 'resources', 'webhooks'] },
  { unit: 'console', mayImport: ['model', 'db', 'records', 'http', 'auth', 'limits', 'webhooks'] },
  // Bulk jobs write through the resources' write path, so webhooks and events go out as for single writes.
  { unit: 'bulk', mayImport: ['model', 'db', 'records', 'http', 'auth', 'limits', 'resources'] },
  // The demo data and the reset: sent through an app cli/ builds, so below the routes; moving a sandbox's
  // clock purges the event log at once.
  { unit: 'sandbox', mayImport: ['model', 'db', 'auth', 'resources', 'webhooks'] },
  // The document describes the rate-limit fields and the sandbox operations from their own declarations.
  { unit: 'api-docs', mayImport: ['model', 'http', 'auth', 'resources', 'carts', 'idempotency', 'bulk', 'limits', 'sandbox'] },
  { unit: 'cli', mayImport: ['*'] },
  { unit: 'top', holds: ['app.ts', 'server.ts', 'index.ts', 'testing.ts'], mayImport: ['*'] },
];

// The lab, from the bottom: scenario files, the world built from them, the responder in front of the servers, the
// namespace that runs them, then the comparison with the reference and the demo on top.
const labUnits: Unit[] = [
  { unit: 'scenario', mayImport: [] },
  { unit: 'world', mayImport: ['scenario'] },
  { unit: 'responder', mayImport: ['scenario', 'world'] },
  { unit: 'namespace', mayImport: ['scenario', 'world', 'responder'] },
  { unit: 'diff', mayImport: ['scenario', 'namespace'] },
  { unit: 'demo', mayImport: ['scenario', 'namespace', 'diff'] },
  { unit: 'top', holds: ['index.ts', 'testing.ts'], mayImport: ['*'] },
];

const folderRules: Record<string, Unit[]> = { dns: dnsUnits, engine: engineUnits, service: serviceUnits, store: storeUnits, lab: labUnits };

for (const [name, units] of Object.entries(folderRules)) {
  test(`${name}'s folders import one way only`, () => {
    assert.deepEqual(ruleCircles(units), [], `${name}'s rules let units import each other`);
    assert.deepEqual(folderRuleBreaches(join(packagesDir, name, 'src'), units), []);
  });
}

for (const name of packages) {
  test(`${name}'s source has no import circles, type-only imports included`, () => {
    assert.deepEqual(importCircles(join(packagesDir, name, 'src')), []);
  });
}

test('the folder check fails on a wrong-way import and on an import circle (fixtures made to break them)', () => {
  const fixture = join(import.meta.dirname, 'fixtures', 'wrong-way', 'src');
  const units: Unit[] = [
    { unit: 'low', mayImport: [] },
    { unit: 'high', mayImport: ['low'] },
  ];
  assert.deepEqual(folderRuleBreaches(fixture, units), ['low/reaches-up.ts (low) imports high/top.ts (high), which low may not import']);
  assert.deepEqual(folderRuleBreaches(fixture, units.slice(1)), ['low/reaches-up.ts belongs to no unit: give its folder a rule']);
  assert.deepEqual(importCircles(fixture), [['high/top.ts', 'low/reaches-up.ts']]);
  assert.deepEqual(ruleCircles([...units, { unit: 'low', mayImport: ['high'] }]).length, 1);
});

test("the store's rules catch its model reaching up into the routes, and a circle through a type-only import is found (fixtures)", () => {
  assert.deepEqual(folderRuleBreaches(join(import.meta.dirname, 'fixtures', 'store-wrong-way', 'src'), storeUnits), [
    'model/declaration.ts (model) imports resources/routes.ts (resources), which model may not import',
  ]);
  assert.deepEqual(importCircles(join(import.meta.dirname, 'fixtures', 'import-circle')), [['a.ts', 'b.ts', 'c.ts']]);
});

// Benchmarks use what a package offers its users, so moves inside a package never break them.
const publicOnlyBenches = [
  'agent',
  'batch',
  'chain',
  'dns-codec',
  'engine',
  'history',
  'lab-big',
  'lab-start',
  'rpc',
  'store',
  'store-auth',
];

test("benchmarks (and the test helpers they share) import only the packages' public entry points", () => {
  const exported = new Map(
    packages.map((name) => {
      const manifest = JSON.parse(readFileSync(join(packagesDir, name, 'package.json'), 'utf8')) as { exports?: Record<string, string> };
      return [
        `@app/${name}`,
        Object.keys(manifest.exports ?? {}).map((key) => (key === '.' ? `@app/${name}` : `@app/${name}${key.slice(1)}`)),
      ];
    }),
  );
  const seen = new Set<string>();
  const queue = publicOnlyBenches.flatMap((bench) => sourceFiles(join(root, 'bench', bench)));
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const where = relative(root, file);
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith('@app/')) {
        const base = specifier.split('/').slice(0, 2).join('/');
        assert.ok(exported.get(base)?.includes(specifier), `${where} imports ${specifier}, which ${base} does not export`);
      } else if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        assert.ok(!target.startsWith(packagesDir + sep), `${where} imports ${specifier}, inside a package: use its entry point`);
        if (target.endsWith('.ts')) queue.push(target);
      }
    }
  }
});
