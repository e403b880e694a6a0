// The history page's watches in Debian's Chromium, inside the DNS lab (as the other browser tests):
// see, add and remove a watch as an API user; checked with axe-core.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runInLab } from './run-in-lab.ts';

const CHROMIUM = '/usr/bin/chromium';

test(
  'in the lab: the history page shows, adds and removes a watch',
  {
    timeout: 300_000,
    skip: existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`,
  },
  async (t) => {
    const output = await runInLab(t, ['single-nameserver'], fileURLToPath(new URL('./inside/web-watch.ts', import.meta.url)));
    if (output === undefined) return;
    assert.match(output, /# pass 1/);
    assert.match(output, /# fail 0/);
  },
);
