#!/usr/bin/env node
// dnscheck <domain> [options]: see src/cli/arguments.ts for the usage.
// Plain JavaScript on purpose: a .ts entry makes Node load its type stripper (about 0.1 s) before the
// compile cache is on; from here on every module comes stripped from that cache.
import { enableCompileCache } from 'node:module';

enableCompileCache();
const { main } = await import('../src/cli/main.ts');

try {
  process.exitCode = await main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    interactive: process.stderr.isTTY,
  });
} catch (error) {
  process.stderr.write(`dnscheck: the test could not finish: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
