// `npm start`: runs every product package that has a `start` script, side by side, on the
// embedded defaults (SQLite under ./data), and stops them all on Ctrl-C.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const root = resolve(import.meta.dirname, '..');
const dataDir = join(root, 'data');

interface Product {
  name: string;
  dir: string;
  command: string;
}

const products: Product[] = readdirSync(join(root, 'packages')).flatMap((name) => {
  const manifestPath = join(root, 'packages', name, 'package.json');
  if (!existsSync(manifestPath)) return [];
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { scripts?: Record<string, string> };
  const command = manifest.scripts?.start;
  return command === undefined ? [] : [{ name, dir: join(root, 'packages', name), command }];
});

if (products.length === 0) {
  console.error('No product package has a start script yet.');
  process.exit(1);
}

const children = new Map<ChildProcess, Product>();
let stopping = false;
let exitCode = 0;

for (const product of products) {
  const child = spawn('sh', ['-c', `exec ${product.command}`], {
    cwd: product.dir,
    env: {
      ...process.env,
      DATA_DIR: process.env.DATA_DIR ?? dataDir,
      PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(child, product);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => console.log(`[${product.name}] ${line}`));
  }
  child.on('exit', (code, signal) => {
    children.delete(child);
    if (!stopping) {
      console.error(`[${product.name}] stopped unexpectedly (${signal ?? `exit ${code}`}); stopping the others.`);
      exitCode = 1;
      stopAll();
    }
    if (children.size === 0) process.exit(exitCode);
  });
}

function stopAll(): void {
  stopping = true;
  for (const child of children.keys()) child.kill('SIGTERM');
  // A product that ignores SIGTERM for too long is not allowed to hold the terminal.
  setTimeout(() => {
    for (const child of children.keys()) child.kill('SIGKILL');
  }, 15_000).unref();
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (!stopping) console.log('Stopping…');
    stopAll();
  });
}
