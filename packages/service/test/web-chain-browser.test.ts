// The report's Chain view in Debian's Chromium, inside the DNS lab, against `dns-service serve --with-agent`:
// the lab's CLI starts the name servers and runs inside/web-chain.ts there.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runInLab } from './run-in-lab.ts';

const CHROMIUM = '/usr/bin/chromium';

test(
  'in the lab: the Chain view of a broken chain in Chromium at 1200 and 360 px: picture, node details and findings, axe, print, SVG export, hostile names',
  {
    timeout: 900_000,
    skip: existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`,
  },
  async (t) => {
    const output = await runInLab(t, ['wrong-ds'], fileURLToPath(new URL('./inside/web-chain.ts', import.meta.url)));
    if (output === undefined) return;
    assert.match(output, /# fail 0/);
    assert.doesNotMatch(output, /# pass 0\b/);
  },
);
