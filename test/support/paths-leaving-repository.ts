// Finds paths in the repository's code that lead out of it: a clone holds only the repository, so a source, test or
// script that reads ../something (or a machine's absolute path) works on one machine and crashes on every other.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

export interface PathLeavingRepository {
  file: string;
  line: number;
  path: string;
}

/** Files whose text can name a path that is read at run time. */
const CODE = /\.(?:[cm]?[jt]s|sh|ya?ml)$|(?:^|\/)(?:package|tsconfig)\.json$|^\.ci\/run$/;

/** Calls whose relative string arguments are taken from the file's own folder. */
const ANCHORED = [
  // import x from '../y'; export ... from '../y'; import('../y')
  /(?:^|\s)(?:import|export)\s[^'"`;]*?from\s+(['"])([^'"]+)\1/gm,
  /\bimport\(\s*(['"`])([^'"`$]+)\1\s*\)/g,
  // new URL('../y', import.meta.url), or a template whose fixed start names the folder
  /\bnew\s+URL\(\s*(['"`])([^'"`]+)\1\s*,\s*import\.meta\.url\s*\)/g,
  // import.meta.resolve('../y')
  /\bimport\.meta\.resolve\(\s*(['"`])([^'"`$]+)\1\s*\)/g,
];

/** resolve(import.meta.dirname, '..', 'x') and join(__dirname, '../x'): every argument after the folder a literal. */
const FROM_OWN_FOLDER = /\b(?:resolve|join)\(\s*(?:import\.meta\.dirname|__dirname)\s*((?:,\s*(['"`])[^'"`$]*\2\s*)+)\)/g;

/** Places that exist only on the machine a file was written on. */
const MACHINE_PATHS = /(['"`\s(=])((?:\/work|\/home|\/root|\/Users)\/[\w.-][^'"`\s)]*|(?:\.\.\/)+shared\/[^'"`\s)]*)/g;

/** Paths in scripts and configuration: package.json scripts, tsconfig extends, scenario extends, shell. */
const CONFIG_PATHS = /(?:^|[\s"'=:])((?:\.\.\/)+[^\s"',;)]*)/g;

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** The paths one file names that resolve outside `root` (the file's path is relative to `root`). */
export function pathsLeavingIn(root: string, file: string, text: string): PathLeavingRepository[] {
  // Shell scripts here start with cd to the repository's root; everything else is read from its own folder.
  const folder = /\.sh$|^\.ci\/run$/.test(file) ? root : dirname(join(root, file));
  const found: PathLeavingRepository[] = [];
  const outside = (target: string): boolean => {
    const rel = relative(root, resolve(folder, target));
    return rel === '..' || rel.startsWith('../') || isAbsolute(rel);
  };
  // Paths resolved from the file's folder and found inside: a folder of the repository named shared/ is one of them.
  const inside = new Set<string>();
  const check = (target: string, index: number): void => {
    if (!target.startsWith('.') && !target.startsWith('/')) return;
    const line = lineOf(text, index);
    if (outside(target.split('${')[0] ?? '')) found.push({ file, line, path: target });
    else inside.add(`${line} ${target}`);
  };

  if (/\.(?:[cm]?[jt]s)$/.test(file)) {
    for (const pattern of ANCHORED) for (const m of text.matchAll(pattern)) check(m[2] ?? '', m.index + m[0].indexOf(m[2] ?? ''));
    for (const m of text.matchAll(FROM_OWN_FOLDER)) {
      const parts = [...(m[1] ?? '').matchAll(/(['"`])([^'"`$]*)\1/g)].map((p) => p[2] ?? '');
      const target = join(...parts);
      if (outside(target)) found.push({ file, line: lineOf(text, m.index), path: parts.join(', ') });
    }
  } else {
    for (const m of text.matchAll(CONFIG_PATHS)) check(m[1] ?? '', m.index);
  }
  for (const m of text.matchAll(MACHINE_PATHS)) {
    const line = lineOf(text, m.index);
    if (!inside.has(`${line} ${m[2] ?? ''}`)) found.push({ file, line, path: m[2] ?? '' });
  }
  return found.filter((p, i) => found.findIndex((q) => q.line === p.line && q.path === p.path) === i);
}

/** Every tracked or new (not ignored) file of the repository that code or scripts live in. */
export function repositoryCodeFiles(root: string): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' });
  return listed.split('\0').filter((file) => CODE.test(file));
}

export function pathsLeavingRepository(root: string, files: string[] = repositoryCodeFiles(root)): PathLeavingRepository[] {
  return files.flatMap((file) => {
    let text: string;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      return []; // listed by git but deleted in the working tree
    }
    return pathsLeavingIn(root, file, text);
  });
}
