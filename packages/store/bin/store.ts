#!/usr/bin/env node
// The `store` command.
import { serveCommand } from '../src/cli/serve.ts';

const [command, ...args] = process.argv.slice(2);

try {
  switch (command) {
    case 'serve':
      await serveCommand(args);
      break;
    default:
      console.error(`Usage: store serve [options]   (store serve --help for the options)`);
      process.exitCode = command === undefined || command === '--help' ? 0 : 2;
  }
} catch (error) {
  console.error(`store: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
