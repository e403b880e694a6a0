// End to end in the DNS lab: the lab's CLI starts real name servers in a private network namespace
// and runs inside/lab-e2e.ts there (the service may not import the lab package, so it runs its CLI).
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { runInLab } from './run-in-lab.ts';

const inside = fileURLToPath(new URL('./inside/lab-e2e.ts', import.meta.url));

test(
  'in the lab: lookups, a test followed to translated results and history, a batch, and reports laid out as zonemaster-gui does',
  { timeout: 240_000 },
  async (t) => {
    const output = await runInLab(t, ['single-nameserver', 'healthy-signed'], inside);
    if (output !== undefined) assert.match(output, /# pass 6/);
  },
);
