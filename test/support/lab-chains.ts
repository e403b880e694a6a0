// The delegation and DNSSEC chain as DNSViz 0.11.2 sees it (`dnsviz probe` then `dnsviz grok`), run
// in a lab from the reference's Debian unstable root, and recorded in test/reference-chains/ so CI
// needs no oracle (LAB_RECORD_REFERENCE=1 records anew). Outside packages/: it joins lab and engine.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { installReferenceCommand, referenceRoot, type Lab } from '@app/lab';
import { strip } from './lab-engines.ts';

export const chainsDir = resolve(import.meta.dirname, '../reference-chains');
// LAB_RECORD_REFERENCE=1 records every run anew; =missing only those not recorded yet.
const recordMode = process.env.LAB_RECORD_REFERENCE;
const shouldRecord = (path: string): boolean => recordMode === '1' || (recordMode === 'missing' && !existsSync(path));
// The lab's root server, as base.yaml names it.
const rootServer = '.:a.root-servers.test=198.51.100.1';

export type GrokOutput = Record<string, unknown>;

function chainPath(scenario: string): string {
  return join(chainsDir, `${scenario}.json`);
}

/** Runs dnsviz probe and grok (no trust anchor: the lab's root is unsigned) on `domain` in the lab. */
async function runDnsviz(lab: Lab, domain: string): Promise<GrokOutput> {
  assert.ok(
    existsSync(join(referenceRoot, 'usr/bin/dnsviz')),
    `dnsviz is not installed in ${referenceRoot} (run: ${installReferenceCommand})`,
  );
  const name = strip(domain);
  const probe = `/tmp/chain-probe-${name}.json`;
  const probed = await lab.exec('chroot', [referenceRoot, 'dnsviz', 'probe', '-A', '-x', rootServer, '-a', '.', '-o', probe, name], {
    timeoutMs: 300_000,
  });
  assert.equal(probed.code, 0, `dnsviz probe ${name}: ${probed.stderr.slice(-400)}`);
  const grok = await lab.exec('chroot', [referenceRoot, 'dnsviz', 'grok', '-r', probe], { timeoutMs: 120_000 });
  assert.equal(grok.code, 0, `dnsviz grok ${name}: ${grok.stderr.slice(-400)}`);
  rmSync(join(referenceRoot, probe), { force: true });
  return JSON.parse(grok.stdout) as GrokOutput;
}

/** DNSViz's grok output for a scenario's domain: recorded, or run and recorded with LAB_RECORD_REFERENCE=1. */
export async function referenceChain(lab: Lab, scenario: string, domain: string): Promise<GrokOutput> {
  const path = chainPath(scenario);
  if (shouldRecord(path)) {
    const grok = await runDnsviz(lab, domain);
    mkdirSync(chainsDir, { recursive: true });
    writeFileSync(
      path,
      `${JSON.stringify({ command: ['dnsviz', 'probe', '-A', '-x', rootServer, '-a', '.', strip(domain), '|', 'dnsviz', 'grok'], grok })}\n`,
    );
    return grok;
  }
  assert.ok(
    existsSync(path),
    `no recorded DNSViz chain for ${scenario}: install the reference (${installReferenceCommand}), then run this test with LAB_RECORD_REFERENCE=1`,
  );
  return (JSON.parse(readFileSync(path, 'utf8')) as { grok: GrokOutput }).grok;
}

export interface ChainFacts {
  delegation: Map<string, string>;
  ds: Map<string, string[]>;
  dnskey: Map<string, string[]>;
}

/** What the comparison looks at, per zone: delegation status, "DS id status" pairs, DNSKEY ids. */
export function factsOf(grok: GrokOutput): ChainFacts {
  const facts: ChainFacts = { delegation: new Map(), ds: new Map(), dnskey: new Map() };
  for (const [zone, value] of Object.entries(grok)) {
    const z = value as { delegation?: { status?: string; ds?: { id: string; status?: string }[] }; dnskey?: { id: string }[] };
    if (z.delegation?.status) facts.delegation.set(zone, z.delegation.status);
    if (z.delegation) facts.ds.set(zone, [...new Set((z.delegation.ds ?? []).map((d) => `${d.id} ${d.status ?? ''}`))].sort());
    facts.dnskey.set(zone, [...new Set((z.dnskey ?? []).map((k) => k.id))].sort());
  }
  return facts;
}

/**
 * Every zone DNSViz names, per field: agreements out of comparisons, and each difference as
 * "scenario zone field: dnsviz X, ours Y".
 */
export async function compareChains(
  scenarios: readonly string[],
  reference: (scenario: string) => Promise<GrokOutput>,
  ours: (scenario: string) => Promise<GrokOutput>,
): Promise<{ totals: Record<keyof ChainFacts, [number, number]>; differences: string[] }> {
  const totals: Record<keyof ChainFacts, [number, number]> = { delegation: [0, 0], ds: [0, 0], dnskey: [0, 0] };
  const differences: string[] = [];
  for (const scenario of scenarios) {
    const expected = factsOf(await reference(scenario));
    const got = factsOf(await ours(scenario));
    for (const field of ['delegation', 'ds', 'dnskey'] as const) {
      for (const [zone, want] of expected[field]) {
        const have = got[field].get(zone);
        totals[field][1] += 1;
        if (JSON.stringify(have) === JSON.stringify(want)) totals[field][0] += 1;
        else differences.push(`${scenario} ${zone} ${field}: dnsviz ${JSON.stringify(want)}, ours ${JSON.stringify(have)}`);
      }
    }
  }
  return { totals, differences };
}
