// A watched zone changes in the DNS lab between two runs (a name server goes silent): the webhook
// receiver and the SMTP receiver each get exactly one alert, naming the finding that appeared.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runInLab } from './run-in-lab.ts';

test(
  'in the lab: a watched zone whose only server goes silent alerts the webhook and the mailbox once',
  { timeout: 300_000 },
  async (t) => {
    const output = await runInLab(t, ['single-nameserver'], fileURLToPath(new URL('./inside/watch-lab.ts', import.meta.url)));
    if (output !== undefined) assert.match(output, /# pass 1/);
  },
);
