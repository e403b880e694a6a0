// The history page's DNSSEC timeline in Debian's Chromium, inside the DNS lab (as the other browser
// tests): lanes for the DS, each server's keys and signature validity, and the alert a watch would send.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runInLab } from './run-in-lab.ts';

const CHROMIUM = '/usr/bin/chromium';

test(
  'in the lab: the history page draws the DNSSEC timeline of recorded runs',
  {
    timeout: 300_000,
    skip: existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`,
  },
  async (t) => {
    const output = await runInLab(t, ['single-nameserver'], fileURLToPath(new URL('./inside/web-timeline.ts', import.meta.url)));
    if (output === undefined) return;
    assert.match(output, /# pass 1/);
    assert.match(output, /# fail 0/);
  },
);
