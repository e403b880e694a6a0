#!/usr/bin/env node
// The `store` command.
import { adminCommand, tokenCommand } from '../src/cli/auth-commands.ts';
import { resetCommand, sandboxCommand, seedCommand } from '../src/cli/sandbox-commands.ts';
import { serveCommand } from '../src/cli/serve.ts';

const [command, ...args] = process.argv.slice(2);

try {
  switch (command) {
    case 'serve':
      await serveCommand(args);
      break;
    case 'token':
      process.exitCode = await tokenCommand(args);
      break;
    case 'admin':
      process.exitCode = await adminCommand(args);
      break;
    case 'seed':
      process.exitCode = await seedCommand(args);
      break;
    case 'reset':
      process.exitCode = await resetCommand(args);
      break;
    case 'sandbox':
      process.exitCode = await sandboxCommand(args);
      break;
    default: {
      // Asked for (help, --help, -h, or nothing): the usage on stdout and success; an unknown command: stderr and 2.
      const asked = command === undefined || command === 'help' || command === '--help' || command === '-h';
      (asked ? console.log : console.error)(`Usage: store serve [options]                      (store serve --help for the options)
       store token create --app NAME --scopes SCOPES [--create]   (a non-expiring API token, printed once)
       store admin create --email EMAIL                (password from STORE_ADMIN_PASSWORD or stdin)
       store seed --demo                               (an empty store filled with demo data, the same every run)
       store reset [--yes]                             (every record deleted, after asking)
       store sandbox clock [--advance 30d]             (a sandbox store's time, shown or moved forward)`);
      process.exitCode = asked ? 0 : 2;
    }
  }
} catch (error) {
  console.error(`store: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
