// The relative imports between a folder's TypeScript files, type-only ones included, and the circles among them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    if (entry === 'node_modules') return [];
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return typeScriptFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

// `import x from`, `import type x from`, `export ... from`, `import('...')` and `import '...'`, over several lines too.
const IMPORT = /(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;

/** The files `file` imports by relative path, resolved. */
export function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3] ?? '').filter((specifier) => specifier.startsWith('.')).map((specifier) => resolve(file, '..', specifier));
}

/** Each circle of imports among `files` (a strongly connected group, listed sorted), none when the graph is acyclic. */
export function importCircles(files: readonly string[]): string[][] {
  const known = new Set(files);
  const edges = new Map(files.map((file) => [file, relativeImports(file).filter((target) => known.has(target))]));
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (edges.get(file) ?? []).includes(file)) circles.push(group.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return circles;
}
