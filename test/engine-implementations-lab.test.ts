// Every module of the engine against the reference (Zonemaster engine 9.0.1, as recorded in
// test/reference-findings/) on the catalogue's variants: scenarios served by Knot DNS, NSD or
// PowerDNS instead of BIND. Each domain is one whole run of each engine, compared as lab:diff does:
// the same findings (test case, tag, level), and the same arguments.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareFindings, loadScenario, scenarioDomain, type Finding as LabFinding } from '@app/lab';
import { useLab } from '@app/lab/testing';
import { ours, reference, strip, variantScenarios, type Finding } from './support/lab-engines.ts';

const scenarios = variantScenarios();
const shared = await useLab(scenarios);
const { skip } = shared;

const levels = ['INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL'];
const versionTags = new Set(['GLOBAL_VERSION', 'MODULE_VERSION', 'DEPENDENCY_VERSION']);
/** What lab:diff compares: INFO and above, without the engines' versions. */
const compared = (findings: Finding[]): LabFinding[] =>
  findings.filter((f) => levels.includes(f.level) && !versionTags.has(f.tag)) as LabFinding[];

test('the variants cover Knot DNS, NSD and PowerDNS, healthy, signed and broken', () => {
  const world = loadScenario(scenarios);
  const byImplementation = Object.groupBy(world.servers, (s) => s.implementation);
  for (const implementation of ['knot', 'nsd', 'powerdns'] as const)
    assert.ok((byImplementation[implementation]?.length ?? 0) >= 8, implementation);
  assert.ok(scenarios.length >= 20, `${scenarios.length} variants`);
  assert.ok(world.zones.some((z) => z.dnssec?.signed === true && z.dnssec.denial === 'nsec3'));
  assert.ok(
    world.servers.some((s) => s.implementation !== 'bind' && s.behaviour.tcp === false),
    'the responder in front of one of them',
  );
});

test('every finding and its arguments agree with the reference on every variant', { skip, timeout: 1_800_000 }, async (t) => {
  const disagreements: string[] = [];
  for (const scenario of scenarios) {
    const domain = scenarioDomain(scenario);
    // One engine at a time: the machine's two cores are shared with the rest of the suite.
    const want = compared(await reference(shared.lab, domain, []));
    const got = compared(await ours(shared.lab, domain));
    const comparison = compareFindings(want, got);
    t.diagnostic(`${scenario}: ${comparison.agree.length} findings agree, ${comparison.arguments.agree.length} with their arguments`);
    const wrong = [
      ...comparison.missing.map((k) => `missing ${k}`),
      ...comparison.extra.map((k) => `extra ${k}`),
      ...comparison.arguments.missing.map((k) => `arguments missing ${k}`),
      ...comparison.arguments.extra.map((k) => `arguments extra ${k}`),
    ];
    if (wrong.length > 0) disagreements.push(`${scenario} (${strip(domain)}):\n  ${wrong.join('\n  ')}`);
  }
  assert.deepEqual(disagreements, []);
});
