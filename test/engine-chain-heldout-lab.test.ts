// The chain against DNSViz on zones written after the analysis was (test/scenarios/chain/): a signed
// parent (NSEC, and NSEC3) under the lab's unsigned test., with secure, unsigned, bogus and RSA
// children; and, written after the chain learnt to ask for the parents' links (chain-deep.yaml), a
// three-level signed chain (NSEC3, RSA with a SHA-384 DS, Ed25519 with one key), an unsigned child
// of the RSA zone, a DS naming a ZSK, a child of a parent whose signatures have expired, and a child
// of a parent with a SHA-1 DS alone. DNSViz's grok output is recorded in
// test/reference-chains/heldout-*.json (LAB_RECORD_REFERENCE=1 records it anew, =missing what is absent).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { labUnavailableReason, scenarioDomain, startLab, type Lab } from '@app/lab';
import { compareChains, referenceChain, type GrokOutput } from './support/lab-chains.ts';
import { dnscheck, strip } from './support/lab-engines.ts';

const dir = resolve(import.meta.dirname, 'scenarios/chain');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => join(dir, f));
const nameOf = (file: string): string => `heldout-${basename(file, '.yaml')}`;

const skipReason = await labUnavailableReason();

describe('the chain of trust against DNSViz, held-out zones', { skip: skipReason ?? false }, () => {
  let lab: Lab;
  let work: string;
  before(async () => {
    lab = await startLab(files);
    work = mkdtempSync(join(tmpdir(), 'chain-heldout-'));
  });
  after(async () => {
    await lab?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("every zone, DS and DNSKEY agrees with dnsviz grok, the signed parents' own links included", { timeout: 600_000 }, async (t) => {
    const byName = new Map(files.map((f) => [nameOf(f), f]));
    const ours = async (name: string): Promise<GrokOutput> => {
      const file = join(work, `${name}.json`);
      const run = await lab.exec(
        process.execPath,
        [dnscheck, strip(scenarioDomain(byName.get(name)!)), '--hints', lab.hintsPath, '--json', '--no-progress', '--chain-json', file],
        { timeoutMs: 240_000 },
      );
      assert.ok(run.code !== 1 && run.code !== 2, `dnscheck ${name} failed (${run.code}): ${run.stderr.slice(-400)}`);
      return JSON.parse(readFileSync(file, 'utf8')) as GrokOutput;
    };
    const { totals, differences } = await compareChains(
      [...byName.keys()],
      (name) => referenceChain(lab, name, scenarioDomain(byName.get(name)!)),
      ours,
    );
    for (const [field, [agree, all]] of Object.entries(totals))
      t.diagnostic(`${field}: ${agree}/${all} agree (${((100 * agree) / all).toFixed(1)}%)`);
    for (const line of differences) t.diagnostic(line);
    assert.deepEqual(differences, []);
  });
});
