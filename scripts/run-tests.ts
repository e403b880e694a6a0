// `npm run test:only [-- FILE...]`: every test file, or only those named, so that `npm test -- FILE` runs one file
// (after typecheck and lint) instead of that file beside all the others. Options (--test-name-pattern=...) pass on.
import { spawnSync } from 'node:child_process';

const given = process.argv.slice(2);
const options = given.filter((arg) => arg.startsWith('-'));
const files = given.filter((arg) => !arg.startsWith('-'));
const args = [
  '--test',
  '--test-concurrency=2',
  ...options,
  ...(files.length > 0 ? files : ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts']),
];
const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(result.status ?? 1);
