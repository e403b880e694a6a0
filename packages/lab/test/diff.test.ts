// The differential runner: set comparison, its report, and a real zonemaster-cli run in a lab.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { catalogueTable, commandLineDomain, compareFindings, labUnavailableReason, ourEngine, runDiff, scenarioReport, zonemasterCli, type Checker, type Finding } from '../src/index.ts';
import { engineCliPath } from '../src/diff/checkers.ts';

const f = (testcase: string, tag: string, level: Finding['level'], args: Record<string, unknown> = {}): Finding => ({ module: 'X', testcase, tag, level, args });

test('findings compare as (testcase, tag, level) sets, whatever their arguments and repeats', () => {
  const reference = [f('BASIC01', 'HAS_PARENT', 'INFO'), f('DNSSEC02', 'DS02_NO_MATCH_DS_DNSKEY', 'ERROR', { ns: 'a' }), f('DNSSEC02', 'DS02_NO_MATCH_DS_DNSKEY', 'ERROR', { ns: 'b' }), f('ZONE02', 'REFRESH_MINIMUM_VALUE_LOWER', 'WARNING')];
  const ours = [f('Basic01', 'HAS_PARENT', 'INFO'), f('Dnssec02', 'DS02_NO_MATCH_DS_DNSKEY', 'WARNING'), f('Zone02', 'REFRESH_MINIMUM_VALUE_LOWER', 'WARNING', { refresh: 1 })];
  const c = compareFindings(reference, ours);
  assert.deepEqual(c.agree, ['BASIC01 HAS_PARENT INFO', 'ZONE02 REFRESH_MINIMUM_VALUE_LOWER WARNING']);
  assert.deepEqual(c.missing, ['DNSSEC02 DS02_NO_MATCH_DS_DNSKEY ERROR']);
  assert.deepEqual(c.extra, ['DNSSEC02 DS02_NO_MATCH_DS_DNSKEY WARNING']);
  assert.equal(c.agreement, 50);
  assert.equal(compareFindings([], []).agreement, 100);
});

test('the catalogue table sums agreement over scenarios and notes engines that could not run', () => {
  const ok = (findings: Finding[]) => ({ ok: true as const, findings, version: 'v', seconds: 1 });
  const a = [f('A', 'T1', 'INFO'), f('A', 'T2', 'INFO')];
  const table = catalogueTable([
    { scenario: 'one', domain: 'one.test.', reference: ok(a), ours: ok([a[0]]), comparison: compareFindings(a, [a[0]]) },
    { scenario: 'two', domain: 'two.test.', reference: ok(a), ours: ok(a), comparison: compareFindings(a, a) },
    { scenario: 'three', domain: 'three.test.', reference: ok(a), ours: { ok: false, reason: 'engine absent' } },
  ]);
  const lines = table.split('\n');
  assert.match(lines[2], /^one\s+one\.test\.\s+2\s+1\s+1\s+1\s+0\s+50\.0%$/);
  assert.match(lines[4], /^three\s+three\.test\.\s+2\s+n\/a\s+-\s+-\s+-\s+n\/a$/);
  assert.match(lines[5], /^total\s+3\s+1\s+0\s+75\.0%$/);
  // Totals per module (a test case's name without its number), then the notes.
  assert.match(lines[7], /^module\s+agree\s+missing\s+extra$/);
  assert.match(lines[9], /^A\s+3\s+1\s+0$/);
  assert.equal(lines.at(-1), 'note: engine absent');
});

const unavailable = (await labUnavailableReason()) ?? (hasZonemaster() ? undefined : 'zonemaster-cli is not installed (Debian package zonemaster-cli)');
if (unavailable !== undefined) console.log(`# skipping differential runs: ${unavailable}`);

function hasZonemaster(): boolean {
  try {
    execFileSync('which', ['zonemaster-cli']);
    return true;
  } catch {
    return false;
  }
}

/** The reference limited to one module: a real second engine whose findings are a known subset. */
const dnssecOnly: Checker = {
  name: 'zonemaster-cli (DNSSEC only)',
  async run(lab, domain) {
    const result = await lab.exec('zonemaster-cli', ['--hints', lab.hintsPath, '--json', '--show-testcase', '--level', 'INFO', '--no-progress', '--test', 'DNSSEC', commandLineDomain(domain)]);
    const findings = (JSON.parse(result.stdout) as Finding[]).filter((x) => x.module === 'DNSSEC');
    return { ok: true, findings, version: 'dnssec-only', seconds: 0 };
  },
};

test('a differential run in a lab: the reference finds the wrong DS, and a partial engine shows as missing findings', { skip: unavailable ?? false }, async () => {
  const [row] = await runDiff(['wrong-ds'], { ours: dnssecOnly });
  assert.ok(row?.reference.ok, row?.reference.ok === false ? row.reference.reason : '');
  assert.match(row.reference.version, /^zonemaster-cli v\d/);
  const c = row.comparison!;
  assert.ok(c.agree.includes('DNSSEC02 DS02_NO_MATCH_DS_DNSKEY ERROR'), c.agree.join('\n'));
  assert.ok(c.agree.every((k) => k.startsWith('DNSSEC')));
  assert.ok(c.missing.some((k) => k.startsWith('BASIC01 ')), 'what the partial engine lacks is missing');
  assert.deepEqual(c.extra, []);
  assert.ok(c.agreement > 0 && c.agreement < 100);
  const report = scenarioReport(row);
  assert.match(report, /Scenario wrong-ds, domain wrongds\.test\./);
  assert.match(report, /Missing from ours \(\d+\):\n(?: {2}.*\n)* {2}BASIC01 HAS_PARENT INFO\n/);
  assert.match(report, /Agreement: \d+\.\d%/);
});

test('our engine: absent until its branch lands (said plainly), else its findings are read', { skip: unavailable ?? false }, async () => {
  const [row] = await runDiff(['nonexistent-domain'], { reference: zonemasterCli, ours: ourEngine });
  if (!existsSync(engineCliPath)) {
    assert.equal(row?.ours.ok, false);
    assert.match(row.ours.ok ? '' : row.ours.reason, /not there yet/);
    assert.match(scenarioReport(row), /The reference's findings \(nothing to compare them with\)/);
  } else {
    assert.ok(row?.ours.ok, row?.ours.ok === false ? row.ours.reason : '');
  }
});
