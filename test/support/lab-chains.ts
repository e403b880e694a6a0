// The delegation and DNSSEC chain as DNSViz 0.11.2 sees it (`dnsviz probe` then `dnsviz grok`), run
// in a lab from the reference's Debian unstable root, and recorded in test/reference-chains/ so CI
// needs no oracle (LAB_RECORD_REFERENCE=1 records anew). Outside packages/: it joins lab and engine.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { installReferenceCommand, referenceRoot, type Lab } from '@app/lab';
import { strip } from './lab-engines.ts';

export const chainsDir = resolve(import.meta.dirname, '../reference-chains');
const recording = process.env.LAB_RECORD_REFERENCE === '1';
// The lab's root server, as base.yaml names it.
const rootServer = '.:a.root-servers.test=198.51.100.1';

export type GrokOutput = Record<string, unknown>;

function chainPath(scenario: string): string {
  return join(chainsDir, `${scenario}.json`);
}

/** Runs dnsviz probe and grok (no trust anchor: the lab's root is unsigned) on `domain` in the lab. */
async function runDnsviz(lab: Lab, domain: string): Promise<GrokOutput> {
  assert.ok(existsSync(join(referenceRoot, 'usr/bin/dnsviz')), `dnsviz is not installed in ${referenceRoot} (run: ${installReferenceCommand})`);
  const name = strip(domain);
  const probe = `/tmp/chain-probe-${name}.json`;
  const probed = await lab.exec('chroot', [referenceRoot, 'dnsviz', 'probe', '-A', '-x', rootServer, '-a', '.', '-o', probe, name], { timeoutMs: 300_000 });
  assert.equal(probed.code, 0, `dnsviz probe ${name}: ${probed.stderr.slice(-400)}`);
  const grok = await lab.exec('chroot', [referenceRoot, 'dnsviz', 'grok', '-r', probe], { timeoutMs: 120_000 });
  assert.equal(grok.code, 0, `dnsviz grok ${name}: ${grok.stderr.slice(-400)}`);
  rmSync(join(referenceRoot, probe), { force: true });
  return JSON.parse(grok.stdout) as GrokOutput;
}

/** DNSViz's grok output for a scenario's domain: recorded, or run and recorded with LAB_RECORD_REFERENCE=1. */
export async function referenceChain(lab: Lab, scenario: string, domain: string): Promise<GrokOutput> {
  const path = chainPath(scenario);
  if (recording) {
    const grok = await runDnsviz(lab, domain);
    mkdirSync(chainsDir, { recursive: true });
    writeFileSync(path, `${JSON.stringify({ command: ['dnsviz', 'probe', '-A', '-x', rootServer, '-a', '.', strip(domain), '|', 'dnsviz', 'grok'], grok })}\n`);
    return grok;
  }
  assert.ok(existsSync(path), `no recorded DNSViz chain for ${scenario}: install the reference (${installReferenceCommand}), then run this test with LAB_RECORD_REFERENCE=1`);
  return (JSON.parse(readFileSync(path, 'utf8')) as { grok: GrokOutput }).grok;
}
