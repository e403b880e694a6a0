// The report's evidence in Debian's Chromium, inside the DNS lab, against `dns-service serve --with-agent`:
// the lab's CLI starts the name servers and runs inside/web-evidence.ts there.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runInLab } from './run-in-lab.ts';

const CHROMIUM = '/usr/bin/chromium';

test(
  'in the lab: query logs, specification links, DS suggestion, exports, reuse notice, progress and comparison in Chromium',
  {
    timeout: 900_000,
    skip: existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`,
  },
  async (t) => {
    const output = await runInLab(
      t,
      ['healthy-signed', 'wrong-ds', 'connectivity-partial'],
      fileURLToPath(new URL('./inside/web-evidence.ts', import.meta.url)),
    );
    if (output === undefined) return;
    assert.match(output, /# fail 0/);
    assert.doesNotMatch(output, /# pass 0\b/);
  },
);
