#!/usr/bin/env node
// dnscheck <domain> [options]: see src/cli/arguments.ts for the usage.
import { enableCompileCache } from 'node:module';

// Type stripping costs about a second per start; the compile cache keeps that to the first run.
enableCompileCache();
const { main } = await import('../src/cli/main.ts');

try {
  process.exitCode = await main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    interactive: process.stderr.isTTY,
  });
} catch (error) {
  process.stderr.write(`dnscheck: the test could not finish: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
