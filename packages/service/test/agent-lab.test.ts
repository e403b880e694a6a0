// `dns-service serve --with-agent` (what `npm start` runs) inside the DNS lab: tests started over
// HTTP are run by the agent with the real engine against real name servers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runInLab } from './run-in-lab.ts';

test('in the lab: the API with its agent runs tests to their results, counted in /metrics', { timeout: 240_000 }, async (t) => {
  const output = await runInLab(
    t,
    ['single-nameserver', 'healthy-signed'],
    fileURLToPath(new URL('./inside/agent-lab.ts', import.meta.url)),
  );
  if (output !== undefined) assert.match(output, /# pass 6/);
});
