// dnscheck --chain-json against DNSViz 0.11.2's `dnsviz grok` on the lab's signed, unsigned and broken
// scenarios: every zone's delegation status, every DS id with its status, and the set of DNSKEY ids,
// zone by zone from the root down. DNSViz's output is recorded in test/reference-chains/
// (LAB_RECORD_REFERENCE=1 records it anew), so this needs the lab but not the oracle.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pLimit from 'p-limit';
import { labUnavailableReason, scenarioDomain, startLab, type Lab } from '@app/lab';
import { compareChains, factsOf, referenceChain, type GrokOutput } from './support/lab-chains.ts';
import { dnscheck, ownScenarios, strip } from './support/lab-engines.ts';

// The whole catalogue but the root zone itself (which has no delegation to judge), and the held-out
// mix-* scenarios and the variants served by other implementations, written for the Zonemaster
// comparison, whose DNSViz chains are not recorded yet.
const scenarios = ownScenarios().filter((name) => name !== 'root-zone' && !name.startsWith('mix-'));

/**
 * Where DNSViz is wrong and we are not, each with why. dnssec-ds-digests: DNSViz's DNS library
 * rejects the parent's DS answer (a DS of digest type 0 beside types 3 and 5) as malformed (FORMERR),
 * so DNSViz sees no DS at all and calls the delegation INSECURE; the valid SHA-256 DS is there.
 */
const dnsvizWrong = [
  'dnssec-ds-digests dnssec-ds-digests.test. delegation: dnsviz "INSECURE", ours "SECURE"',
  'dnssec-ds-digests dnssec-ds-digests.test. ds: dnsviz [], ours ["13/12345/0 INDETERMINATE_NO_DNSKEY","13/12345/3 INDETERMINATE_NO_DNSKEY","13/12345/5 INDETERMINATE_NO_DNSKEY","13/60742/2 VALID"]',
];
const knownDifferences = [...dnsvizWrong].sort();

const skipReason = await labUnavailableReason();

describe('the chain of trust against DNSViz', { skip: skipReason ?? false }, () => {
  let lab: Lab;
  let work: string;
  const ours = new Map<string, Promise<GrokOutput>>();
  const limit = pLimit(3);
  before(async () => {
    lab = await startLab(scenarios);
    work = mkdtempSync(join(tmpdir(), 'chain-lab-'));
  });
  after(async () => {
    await lab?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  function ourChain(scenario: string): Promise<GrokOutput> {
    if (!ours.has(scenario)) {
      ours.set(
        scenario,
        limit(async () => {
          const file = join(work, `${scenario}.json`);
          const saved = join(work, `${scenario}.run.json`);
          const run = await lab.exec(
            process.execPath,
            [
              dnscheck,
              strip(scenarioDomain(scenario)),
              '--hints',
              lab.hintsPath,
              '--json',
              '--no-progress',
              '--chain-json',
              file,
              '--save',
              saved,
            ],
            { timeoutMs: 240_000 },
          );
          assert.ok(run.code !== 1 && run.code !== 2, `dnscheck ${scenario} failed (${run.code}): ${run.stderr.slice(-400)}`);
          return JSON.parse(readFileSync(file, 'utf8')) as GrokOutput;
        }),
      );
    }
    return ours.get(scenario)!;
  }

  test('every zone, DS and DNSKEY agrees with dnsviz grok on every scenario', { timeout: 900_000 }, async (t) => {
    for (const scenario of scenarios) void ourChain(scenario);
    const { totals, differences } = await compareChains(
      scenarios,
      (scenario) => referenceChain(lab, scenario, scenarioDomain(scenario)),
      ourChain,
    );
    for (const [field, [agree, all]] of Object.entries(totals))
      t.diagnostic(`${field}: ${agree}/${all} agree (${((100 * agree) / all).toFixed(1)}%)`);
    for (const line of differences) t.diagnostic(line);
    assert.deepEqual([...differences].sort(), knownDifferences);
  });

  test('a saved run gives the same chain offline (--restore --chain-json)', async () => {
    for (const scenario of ['wrong-ds', 'healthy-signed', 'expired-signatures', 'lame-delegation']) {
      const live = factsOf(await ourChain(scenario));
      const out = join(work, `${scenario}.restored.json`);
      const restored = await lab.exec(process.execPath, [dnscheck, '--restore', join(work, `${scenario}.run.json`), '--chain-json', out]);
      assert.ok(restored.code !== 1 && restored.code !== 2, restored.stderr);
      const offline = factsOf(JSON.parse(readFileSync(out, 'utf8')) as GrokOutput);
      assert.deepEqual(
        [...offline.delegation, ...offline.ds, ...offline.dnskey],
        [...live.delegation, ...live.ds, ...live.dnskey],
        scenario,
      );
    }
  });

  test('a wrong DS is INVALID_DIGEST and the delegation BOGUS; the healthy zone is SECURE', async () => {
    const wrong = (await ourChain('wrong-ds'))['wrongds.test.'] as { delegation: { status: string; ds: { id: string; status: string }[] } };
    assert.equal(wrong.delegation.status, 'BOGUS');
    assert.deepEqual(
      wrong.delegation.ds.map((d) => [d.id, d.status]),
      [['13/37737/2', 'INVALID_DIGEST']],
    );
    const healthy = (await ourChain('healthy-signed'))['healthy.test.'] as {
      delegation: { status: string };
      dnskey: { signs: string[] }[];
    };
    assert.equal(healthy.delegation.status, 'SECURE');
    assert.ok(healthy.dnskey.some((k) => k.signs.includes('healthy.test./DNSKEY')));
  });
});
