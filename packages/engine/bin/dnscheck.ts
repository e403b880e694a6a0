#!/usr/bin/env node
// dnscheck <domain> [options]: see src/cli/arguments.ts for the usage.
import { main } from '../src/cli/main.ts';

process.exitCode = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  interactive: process.stderr.isTTY,
});
