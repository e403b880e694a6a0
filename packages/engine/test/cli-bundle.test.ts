// The dnscheck bundle is a start-up cache: it must say what the sources say, and it must be left
// aside as soon as one of the files it was made from changes.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { bundleCli } from '../scripts/bundle-cli.ts';
import { freshBundle, loadBundle } from '../bin/cli-bundle.js';
import { main as fromSources } from '../src/cli/main.ts';

type Main = typeof fromSources;

/** Findings without the second each was made at, which differs from run to run. */
const withoutTimes = (json: string) => (JSON.parse(json) as { timestamp?: number }[]).map(({ timestamp: _t, ...rest }) => rest);

async function capture(main: Main, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), interactive: false });
  return { code, stdout, stderr };
}

test('a bundle counts while every input is older than its build, and not once one changes or is gone', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dnscheck-fresh-'));
  await writeFile(join(dir, 'input.ts'), 'export {};\n');
  await writeFile(join(dir, 'dnscheck.mjs'), '');
  const manifest = (inputs: string[]) =>
    writeFile(join(dir, 'manifest.json'), JSON.stringify({ entry: 'dnscheck.mjs', started: Date.now(), inputs }));
  const past = new Date(Date.now() - 60_000);
  await utimes(join(dir, 'input.ts'), past, past);
  await manifest(['input.ts']);
  assert.equal(freshBundle(dir), join(dir, 'dnscheck.mjs'));

  const future = new Date(Date.now() + 60_000);
  await utimes(join(dir, 'input.ts'), future, future);
  assert.equal(freshBundle(dir), undefined, 'an input changed after the build began');

  await manifest(['gone.ts']);
  assert.equal(freshBundle(dir), undefined, 'an input that is no longer there');
  await writeFile(join(dir, 'manifest.json'), 'not json');
  assert.equal(freshBundle(dir), undefined, 'a manifest that cannot be read');
  assert.equal(freshBundle(join(dir, 'nowhere')), undefined, 'no bundle at all');
});

test('the bundle prints what the sources print: test list in French, a run, and its restore in Finnish', async () => {
  const outdir = await mkdtemp(join(tmpdir(), 'dnscheck-bundle-'));
  await bundleCli(outdir);
  const entry = freshBundle(outdir);
  assert.ok(entry, 'a bundle just built is fresh');
  const { main: fromBundle } = loadBundle(entry);
  assert.doesNotMatch(await readFile(entry, 'utf8'), /[^\p{ASCII}]/u, 'the bundle is ASCII, so V8 holds it one byte a character');
  // Of a package from node_modules only its package.json is watched (an install rewrites it with the rest).
  const { inputs } = JSON.parse(await readFile(join(outdir, 'manifest.json'), 'utf8')) as { inputs: string[] };
  assert.ok(
    inputs.some((input) => input.endsWith('/src/cli/main.ts')),
    'the sources are watched',
  );
  assert.ok(
    inputs.some((input) => input.endsWith('/node_modules/zod/package.json')),
    'a package is watched by its package.json',
  );
  assert.deepEqual(
    inputs.filter((input) => input.includes('/node_modules/') && !input.endsWith('/package.json')),
    [],
    'not by each of its files',
  );

  for (const argv of [['--list-tests', '--locale', 'fr'], ['--version'], ['--dump-profile']]) {
    assert.deepEqual(await capture(fromBundle, argv), await capture(fromSources, argv), argv.join(' '));
  }

  // Both IP families off: a whole run without a query sent.
  const saved = join(outdir, 'run.json');
  const bundled = await capture(fromBundle, [
    'example',
    '--no-ipv4',
    '--no-ipv6',
    '--json',
    '--level',
    'DEBUG',
    '--no-progress',
    '--save',
    saved,
  ]);
  const sources = await capture(fromSources, ['example', '--no-ipv4', '--no-ipv6', '--json', '--level', 'DEBUG', '--no-progress']);
  assert.equal(bundled.code, sources.code);
  assert.deepEqual(withoutTimes(bundled.stdout), withoutTimes(sources.stdout));
  assert.ok(withoutTimes(bundled.stdout).length > 0);

  const restore = ['--restore', saved, '--locale', 'fi', '--level', 'DEBUG'];
  const restored = await capture(fromBundle, restore);
  assert.deepEqual(restored, await capture(fromSources, restore));
  assert.match(restored.stdout, /^Taso\s+Viesti$/m);
  assert.ok(JSON.parse(await readFile(saved, 'utf8')));
});

test('a zone test leaves the code it compiled beside the bundle; the next run takes it, a refused one is replaced', async () => {
  const outdir = await mkdtemp(join(tmpdir(), 'dnscheck-code-cache-'));
  await bundleCli(outdir);
  const entry = freshBundle(outdir)!;
  const cache = `${entry}.code-cache`;
  // Each run in a process of its own, as dnscheck runs: V8 keeps what it compiled for the process.
  const child = async (argv: string[]): Promise<string> => {
    const script = `const { loadBundle } = await import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, '../bin/cli-bundle.js')).href)});
      const bundle = loadBundle(${JSON.stringify(entry)});
      let out = '';
      await bundle.main(${JSON.stringify(argv)}, { stdout: (t) => (out += t), stderr: () => {}, interactive: false, testedZone: () => bundle.keepCompiledCode() });
      process.stdout.write(out);`;
    return (await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script])).stdout;
  };
  const zone = ['example', '--no-ipv4', '--no-ipv6', '--json', '--no-progress', '--raw'];

  await child(['--version']);
  await assert.rejects(stat(cache), 'nothing is kept before a zone test');
  const output = withoutTimes(await child(zone));
  const written = await stat(cache);
  assert.ok(written.size > 10_000, `a code cache of ${written.size} bytes`);

  assert.deepEqual(withoutTimes(await child(zone)), output, 'the run with the cache says the same');
  assert.equal((await stat(cache)).mtimeMs, written.mtimeMs, 'a usable cache is not written again');

  await writeFile(cache, 'not a code cache');
  assert.deepEqual(withoutTimes(await child(zone)), output, 'a cache V8 refuses is no harm');
  assert.ok((await stat(cache)).size > 10_000, 'and it is replaced');
});

test('bin/dnscheck.js runs, from the bundle or from the sources, and says the same', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [
    join(import.meta.dirname, '../bin/dnscheck.js'),
    '--list-tests',
    '--locale',
    'sv',
  ]);
  assert.equal(stdout, (await capture(fromSources, ['--list-tests', '--locale', 'sv'])).stdout);
});
