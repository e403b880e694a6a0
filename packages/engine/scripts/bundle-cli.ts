// Bundles the dnscheck CLI into packages/engine/dist/ (run by `npm install`, through `prepare`).
// The bundle is a start-up cache, not a build the project depends on: loading one module instead of
// about ninety saves some 25 ms of a typical 160 ms run, and as one CommonJS script it can carry V8's
// code cache of a whole run (bin/cli-bundle.js). bin/dnscheck.js uses it only while none of the files
// it was made from has changed since; otherwise the sources run.
//   node packages/engine/scripts/bundle-cli.ts [outdir]
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const engine = resolve(import.meta.dirname, '..');
const catalogue = join(engine, 'src/catalogue');
export const defaultOutdir = join(engine, 'dist');

/**
 * The files whose change makes the bundle stale: every source, and for a package from node_modules
 * its package.json alone, which an install or update rewrites with the rest. dnscheck looks at each
 * of them before every run, and the packages' own files were half of them.
 */
function watched(inputs: readonly string[]): string[] {
  const files = new Set<string>();
  for (const input of inputs) {
    const at = input.lastIndexOf(`${sep}node_modules${sep}`);
    if (at < 0) {
      files.add(input);
      continue;
    }
    const rest = input.slice(at + `${sep}node_modules${sep}`.length).split(sep);
    const name = rest[0].startsWith('@') ? rest.slice(0, 2) : rest.slice(0, 1);
    files.add(join(input.slice(0, at), 'node_modules', ...name, 'package.json'));
  }
  return [...files];
}

/**
 * esbuild writes code in ASCII but keeps comments as they are; one character beyond ASCII (a "§" in
 * a comment) makes V8 hold the whole 1.3 MB source as two bytes a character, read more slowly and
 * twice as large on the heap. In a comment an escape reads as well.
 */
function asciiOnly(path: string): void {
  const text = readFileSync(path, 'utf8');
  if (/[^\p{ASCII}]/u.test(text))
    writeFileSync(
      path,
      text.replace(/[^\p{ASCII}]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`),
    );
}

/** Builds the bundle into `outdir`, with the manifest bin/cli-bundle.js reads. */
export async function bundleCli(outdir = defaultOutdir): Promise<void> {
  const { build } = await import('esbuild');
  // Sources changed while esbuild reads them must make the bundle stale, so the clock starts first.
  const started = Date.now();
  // The manifest goes first and comes back last: a dnscheck starting meanwhile runs the sources.
  rmSync(join(outdir, 'manifest.json'), { force: true });
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: { dnscheck: join(engine, 'src/cli/main.ts') },
    outdir,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node24',
    outExtension: { '.js': '.cjs' },
    // import.meta.url only serves createRequire (tr46), which resolves from the bundle's folder as well.
    define: { 'import.meta.url': '__importMetaUrl' },
    banner: { js: 'const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
    metafile: true,
    logLevel: 'warning',
    plugins: [
      {
        // The catalogue reads its locale folders beside its own file; from the bundle that is elsewhere.
        name: 'catalogue-folder',
        setup(bundler) {
          bundler.onLoad({ filter: /[\\/]src[\\/]catalogue[\\/]catalogue\.ts$/ }, (args) => ({
            contents: readFileSync(args.path, 'utf8').replaceAll(
              'import.meta.dirname',
              `join(__dirname, ${JSON.stringify(relative(outdir, catalogue))})`,
            ),
            loader: 'ts',
          }));
        },
      },
    ],
  });
  asciiOnly(join(outdir, 'dnscheck.cjs'));
  const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(input));
  // Any other module that finds files beside itself would look in the wrong folder once bundled.
  const misplaced = inputs.filter(
    (input) => !input.startsWith(catalogue) && /import\.meta\.(dirname|filename)/.test(readFileSync(input, 'utf8')),
  );
  if (misplaced.length > 0) throw new Error(`these modules find files by their own folder, which a bundle moves: ${misplaced.join(', ')}`);
  const manifest = { entry: 'dnscheck.cjs', started, inputs: watched(inputs).map((input) => relative(outdir, input)) };
  writeFileSync(join(outdir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

if (import.meta.main) {
  try {
    await bundleCli(process.argv[2] ? resolve(process.argv[2]) : defaultOutdir);
  } catch (error) {
    // Without the bundle dnscheck still runs, from its sources: an install must not fail for it.
    console.warn(`bundle-cli: no bundle (dnscheck runs from its sources): ${error instanceof Error ? error.message : String(error)}`);
  }
}
