#!/usr/bin/env node
// dnscheck <domain> [options]: see src/cli/arguments.ts for the usage.
// Plain JavaScript on purpose: a .ts entry makes Node load its type stripper (about 0.1 s) before the
// compile cache is on; from here on every module comes stripped from that cache. The bundle, when
// fresh, saves loading the modules one by one (cli-bundle.js).
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';
import { freshBundle, loadBundle } from './cli-bundle.js';

enableCompileCache();
const bundlePath = freshBundle(join(import.meta.dirname, '../dist'));
const bundle = bundlePath ? loadBundle(bundlePath) : undefined;
const { main } = bundle ?? (await import('../src/cli/main.ts'));

try {
  process.exitCode = await main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    interactive: process.stderr.isTTY,
    ...(bundle && { testedZone: () => bundle.keepCompiledCode() }),
  });
} catch (error) {
  process.stderr.write(`dnscheck: the test could not finish: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
// Done: once what was written has gone out, exit rather than let Node take down the whole heap first
// (some 3 ms of a 140 ms run); nothing is left to wait for, since main awaited all it started.
const flushed = (stream) => new Promise((resolve) => stream.write('', resolve));
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit();
