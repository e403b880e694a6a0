// Reads scenario files (YAML or JSON), follows `extends`, merges several into one world and checks
// that the world hangs together (known servers, unique addresses, a root zone).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { bigWorld, bigWorldSize, type BulkZone } from './big-world.ts';
import { scenarioSchema, type Implementation, type Scenario, type ScenarioFile, type ServerSpec } from './scenario-format.ts';
import { deriveVariant } from './scenario-variant.ts';

export class ScenarioError extends Error {
  override name = 'ScenarioError';
}

export const catalogueDir = resolve(import.meta.dirname, '../../scenarios');

let catalogue: string[] | undefined;

/** The catalogue: every scenario file in packages/lab/scenarios that names a domain (base.yaml does not). */
export function catalogueNames(): string[] {
  catalogue ??= readdirSync(catalogueDir)
    .filter((file) => /\.(?:ya?ml|json)$/.test(file))
    .sort()
    .filter((file) => parseScenarioText(readFileSync(join(catalogueDir, file), 'utf8'), file).domain !== undefined)
    .map((file) => basename(file, extname(file)));
  return catalogue;
}

/** The scenario a variant copies (its `variantOf`), or undefined for a scenario of its own. */
export function variantSource(nameOrPath: string): string | undefined {
  const path = resolveScenarioPath(nameOrPath);
  return parseScenarioText(readFileSync(path, 'utf8'), path).variantOf;
}

/** A catalogue name (`lame-delegation`) or a path to a .yaml/.yml/.json file. */
export function resolveScenarioPath(nameOrPath: string, relativeTo = process.cwd()): string {
  if (!nameOrPath.includes('/') && extname(nameOrPath) === '') {
    for (const ext of ['.yaml', '.yml', '.json']) {
      const candidate = join(catalogueDir, nameOrPath + ext);
      if (existsSync(candidate)) return candidate;
    }
    throw new ScenarioError(`unknown scenario "${nameOrPath}"; the catalogue has: ${catalogueNames().join(', ')}`);
  }
  const path = isAbsolute(nameOrPath) ? nameOrPath : resolve(relativeTo, nameOrPath);
  if (!existsSync(path)) throw new ScenarioError(`scenario file not found: ${path}`);
  return path;
}

export function parseScenarioText(text: string, source: string): ScenarioFile {
  let data: unknown;
  try {
    data = extname(source) === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ScenarioError(`${source}: not valid ${extname(source) === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
  const result = scenarioSchema.safeParse(data ?? {});
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(top)'}: ${issue.message}`);
    throw new ScenarioError(`${source}: invalid scenario\n${problems.join('\n')}`);
  }
  return result.data;
}

/** Loads one or more scenarios (names or paths) as one world. */
export function loadScenario(namesOrPaths: string | string[]): Scenario {
  const list = Array.isArray(namesOrPaths) ? namesOrPaths : [namesOrPaths];
  if (list.length === 0) throw new ScenarioError('no scenario given');
  const seen = new Set<string>();
  const files: { path: string; file: ScenarioFile }[] = [];
  const visit = (path: string, chain: string[]): void => {
    if (chain.includes(path)) throw new ScenarioError(`scenario extends itself: ${[...chain, path].map((p) => basename(p)).join(' -> ')}`);
    if (seen.has(path)) return;
    const file = readScenarioFile(path, chain);
    const parents = file.extends === undefined ? [] : Array.isArray(file.extends) ? file.extends : [file.extends];
    for (const parent of parents) visit(resolveScenarioPath(parent, dirname(path)), [...chain, path]);
    seen.add(path);
    files.push({ path, file });
  };
  const bulkZones: BulkZone[] = [];
  for (const item of list) {
    // A generated world (big:N) joins like a file that extends base.yaml.
    const size = bigWorldSize(item);
    if (size === undefined) {
      visit(resolveScenarioPath(item), []);
      continue;
    }
    const generated = bigWorld(size);
    visit(resolveScenarioPath('base'), []);
    files.push({ path: item, file: generated.file });
    bulkZones.push(...generated.bulkZones);
  }

  const scenario: Scenario = {
    sources: files.map((f) => f.path),
    description: files
      .map((f) => f.file.description)
      .filter((d) => d !== undefined)
      .join(' + '),
    domains: files.flatMap((f) => (f.file.domain === undefined ? [] : [f.file.domain])),
    servers: files.flatMap((f) => withImplementations(f.file, f.path)),
    zones: files.flatMap((f) => f.file.zones),
    ...(bulkZones.length > 0 && { bulkZones }),
  };
  checkWorld(scenario);
  return scenario;
}

/** A scenario file as it joins a world: a variant with its scenario's servers and zones copied in. */
function readScenarioFile(path: string, chain: string[]): ScenarioFile {
  const file = parseScenarioText(readFileSync(path, 'utf8'), path);
  if (file.variantOf === undefined) return file;
  const sourcePath = resolveScenarioPath(file.variantOf, dirname(path));
  if ([...chain, path].includes(sourcePath))
    throw new ScenarioError(`scenario is a variant of itself: ${[...chain, path, sourcePath].map((p) => basename(p)).join(' -> ')}`);
  const source = readScenarioFile(sourcePath, [...chain, path]);
  const sourceExtends =
    source.extends === undefined
      ? []
      : (Array.isArray(source.extends) ? source.extends : [source.extends]).map((parent) =>
          resolveScenarioPath(parent, dirname(sourcePath)),
        );
  try {
    return deriveVariant(file, source, sourceExtends, basename(path));
  } catch (error) {
    throw new ScenarioError((error as Error).message);
  }
}

/** The file's servers with their implementation settled: their own, else the file's, else BIND. */
function withImplementations(file: ScenarioFile, path: string): ServerSpec[] {
  const chosen = file.implementation;
  const perServer =
    typeof chosen === 'object'
      ? new Map(Object.entries(chosen).map(([name, impl]) => [(name.endsWith('.') ? name : `${name}.`).toLowerCase(), impl]))
      : undefined;
  const unknown = [...(perServer?.keys() ?? [])].filter((name) => !file.servers.some((s) => s.name === name));
  if (unknown.length > 0)
    throw new ScenarioError(`${basename(path)}: implementation names ${unknown.join(', ')}, which the file does not define`);
  return file.servers.map((server) => {
    const implementation: Implementation =
      server.implementation ?? perServer?.get(server.name) ?? (typeof chosen === 'string' ? chosen : 'bind');
    return { ...server, implementation };
  });
}

function checkWorld(scenario: Scenario): void {
  const problems: string[] = [];
  const names = new Set<string>();
  const addressOwner = new Map<string, string>();
  for (const server of scenario.servers) {
    if (names.has(server.name)) problems.push(`server ${server.name} is defined twice`);
    names.add(server.name);
    for (const alias of server.aliases) {
      if (scenario.servers.some((other) => other.name === alias || (other !== server && other.aliases.includes(alias))))
        problems.push(`alias ${alias} of ${server.name} names another server too`);
    }
    for (const address of server.addresses) {
      const key = address.toLowerCase();
      const owner = addressOwner.get(key);
      if (owner !== undefined) problems.push(`address ${address} belongs to both ${owner} and ${server.name}`);
      addressOwner.set(key, server.name);
    }
    const from = server.behaviour.answerFrom?.toLowerCase();
    if (from !== undefined) {
      // The responder binds port 53 there, so nothing else may own it.
      const owner = addressOwner.get(from);
      if (owner !== undefined) problems.push(`address ${from} belongs to both ${owner} and ${server.name} (answerFrom)`);
      addressOwner.set(from, `${server.name} (answerFrom)`);
    }
    if (server.behaviour.recursion && server.implementation !== 'bind') {
      problems.push(`server ${server.name}: open recursion is played by BIND only (the others are authoritative-only servers)`);
    }
    const backend = server.encrypted?.backend;
    if (backend !== undefined && !scenario.servers.some((other) => other.name === backend))
      problems.push(`server ${server.name}: encrypted.backend names unknown server ${backend}`);
    const encrypted = server.encrypted && encryptedFront(server);
    if (encrypted !== undefined && encrypted !== 'native' && encrypted !== 'dnsdist') problems.push(`server ${server.name}: ${encrypted}`);
    if (server.behaviour.recursion && needsResponder(server)) {
      problems.push(`server ${server.name}: open recursion is played by BIND and cannot be combined with responder-only misbehaviours`);
    }
  }
  const served = new Set<string>();
  for (const zone of scenario.zones) {
    for (const server of zone.servers) {
      if (!names.has(server)) problems.push(`zone ${zone.origin} names unknown server ${server}`);
      const key = `${zone.origin} ${server}`;
      if (served.has(key)) problems.push(`server ${server} serves zone ${zone.origin} twice`);
      served.add(key);
    }
  }
  for (const zone of scenario.bulkZones ?? [])
    for (const server of zone.servers) if (!names.has(server)) problems.push(`zone ${zone.origin} names unknown server ${server}`);
  if (!scenario.zones.some((zone) => zone.origin === '.')) problems.push('there is no root zone (origin ".")');
  if (problems.length > 0) throw new ScenarioError(`${scenario.sources.map((s) => basename(s)).join(' + ')}:\n  ${problems.join('\n  ')}`);
}

/**
 * Who serves a server's encrypted transports, or why the scenario cannot have it: BIND serves DoT and
 * DoH, NSD DoT only; Knot DNS and PowerDNS neither (Debian's Knot 3.2 is built without QUIC and TLS).
 */
export function encryptedFront(server: Scenario['servers'][number]): string {
  const wanted = server.encrypted;
  if (!wanted) return 'native';
  const can = server.implementation === 'bind' || (server.implementation === 'nsd' && !wanted.doh);
  if (wanted.front === 'auto') return can && wanted.backend === undefined ? 'native' : 'dnsdist';
  if (wanted.backend !== undefined && wanted.front === 'native') return 'a backend is for front: dnsdist';
  if (wanted.front === 'native' && !can)
    return `${server.implementation} cannot serve ${wanted.doh ? 'DNS over HTTPS' : 'DNS over TLS'} itself (front: dnsdist can)`;
  return wanted.front;
}

/** True when a server misbehaves in a way only our own responder can play (BIND cannot). */
export function needsResponder(server: Scenario['servers'][number]): boolean {
  const b = server.behaviour;
  return (
    b.tcp !== true ||
    b.udp !== true ||
    b.delay !== undefined ||
    b.drop.length > 0 ||
    b.empty.length > 0 ||
    b.rcode !== undefined ||
    !b.aa ||
    b.upwardReferral ||
    b.edns !== 'supported' ||
    b.truncate !== false ||
    b.qnameCase !== 'kept' ||
    b.answerFrom !== undefined ||
    b.answerName !== undefined ||
    b.unknownOption !== 'ignored' ||
    b.ednsZ !== 'cleared' ||
    b.extraSoa ||
    b.stripRrsigs.length > 0 ||
    b.stripRecords.length > 0 ||
    b.versionAnswer !== 'bind' ||
    b.headerEcho.length > 0 ||
    b.flagsRefused.length > 0 ||
    b.rd !== 'kept' ||
    b.unknownOpcode !== 'notimp' ||
    b.udpSize !== 'honoured' ||
    b.clearFlags.length > 0 ||
    Object.keys(b.knownOptions).length > 0 ||
    b.cookie !== 'server'
  );
}
