// The web interface in Debian's Chromium, inside the DNS lab, against `dns-service serve
// --with-agent`: the lab's CLI starts the name servers and runs inside/web-browser.ts there.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runInLab } from './run-in-lab.ts';

const CHROMIUM = '/usr/bin/chromium';

test(
  'in the lab: the web interface in Chromium, from the form to reports, history, comparison and batches',
  {
    timeout: 600_000,
    skip: existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`,
  },
  async (t) => {
    const output = await runInLab(
      t,
      ['healthy-signed', 'basic-no-working-ns'],
      fileURLToPath(new URL('./inside/web-browser.ts', import.meta.url)),
    );
    if (output === undefined) return;
    assert.match(output, /# fail 0/);
    assert.doesNotMatch(output, /# pass 0\b/);
    // What the page weighs and what axe said are printed by the inner run; pass them on.
    for (const [, line] of output.matchAll(/^\s*# \\?# ((?:weight|axe) .*)$/gm)) t.diagnostic(line ?? '');
  },
);
