// Reads a source tree's imports and checks them against folder rules: which folder (or file kept apart
// from its folder) may import which. The architecture test applies it to the packages, and to fixtures
// that break it on purpose so that the check is seen to fail.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** One unit of a package's `src/`: the folders or files it holds, and the units it may import. */
export interface Unit {
  unit: string;
  /** Paths under src/ (folders or files); the unit's own name when absent. */
  holds?: readonly string[];
  mayImport: readonly string[];
}

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    if (entry === 'node_modules' || entry === 'fixtures') return [];
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier a file names, type-only imports and re-exports included. */
export function importsOf(file: string): string[] {
  // TypeScript's own scanner: however a formatter lays an import out, and never fooled by one in a comment or string.
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((imported) => imported.fileName);
}

/** Relative imports of `file` that resolve to a source file, as absolute paths. */
function localImports(file: string): string[] {
  return importsOf(file)
    .filter((specifier) => specifier.startsWith('.') && specifier.endsWith('.ts'))
    .map((specifier) => resolve(dirname(file), specifier));
}

/** The unit that holds a path under src/: the one naming the longest part of it. */
function unitOf(path: string, units: readonly Unit[]): string | undefined {
  let best: { unit: string; length: number } | undefined;
  for (const { unit, holds = [unit] } of units) {
    for (const held of holds) {
      if ((path === held || path.startsWith(`${held}/`)) && held.length > (best?.length ?? -1)) best = { unit, length: held.length };
    }
  }
  return best?.unit;
}

/** Files no unit holds, and imports from one unit to another that its rule does not list. */
export function folderRuleBreaches(srcDir: string, units: readonly Unit[]): string[] {
  const rules = new Map(units.map((u) => [u.unit, new Set(u.mayImport)]));
  const breaches: string[] = [];
  for (const file of sourceFiles(srcDir)) {
    const path = relative(srcDir, file).split(sep).join('/');
    const from = unitOf(path, units);
    if (from === undefined) {
      breaches.push(`${path} belongs to no unit: give its folder a rule`);
      continue;
    }
    for (const target of localImports(file)) {
      if (!target.startsWith(srcDir + sep)) continue;
      const to = unitOf(relative(srcDir, target).split(sep).join('/'), units);
      if (to === undefined || to === from || rules.get(from)?.has('*') || rules.get(from)?.has(to)) continue;
      breaches.push(`${path} (${from}) imports ${relative(srcDir, target)} (${to}), which ${from} may not import`);
    }
  }
  return breaches;
}

/** Circles among the rules themselves: units that may import each other, directly or round about. */
export function ruleCircles(units: readonly Unit[]): string[][] {
  return circles(new Map(units.map((u) => [u.unit, u.mayImport.filter((m) => m !== '*')])));
}

/** Files that import each other, directly or round about (type-only imports count too). */
export function importCircles(srcDir: string): string[][] {
  const graph = new Map(sourceFiles(srcDir).map((file) => [file, localImports(file)]));
  return circles(graph).map((circle) => circle.map((file) => relative(srcDir, file)));
}

// Tarjan's strongly connected components: each with more than one member, or a member naming itself, is a circle.
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = member === node ? undefined : stack.pop()) {
      onStack.delete(member);
      component.push(member);
    }
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}
