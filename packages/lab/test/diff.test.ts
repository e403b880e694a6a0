// The differential runner: set comparison, its report, and a real zonemaster-cli run in a lab.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import {
  catalogueTable,
  commandLineDomain,
  compareFindings,
  execReference,
  labUnavailableReason,
  ourEngine,
  parseFindings,
  referenceUnavailableReason,
  runDiff,
  scenarioReport,
  zonemasterCli,
  type Checker,
  type Finding,
} from '../src/index.ts';
import { engineCliPath } from '../src/diff/checkers.ts';

const f = (testcase: string, tag: string, level: Finding['level'], args: Record<string, unknown> = {}): Finding => ({
  module: 'X',
  testcase,
  tag,
  level,
  args,
});

test('findings compare as (testcase, tag, level) sets, whatever their arguments and repeats', () => {
  const reference = [
    f('BASIC01', 'HAS_PARENT', 'INFO'),
    f('DNSSEC02', 'DS02_NO_MATCH_DS_DNSKEY', 'ERROR', { ns: 'a' }),
    f('DNSSEC02', 'DS02_NO_MATCH_DS_DNSKEY', 'ERROR', { ns: 'b' }),
    f('ZONE02', 'REFRESH_MINIMUM_VALUE_LOWER', 'WARNING'),
  ];
  const ours = [
    f('Basic01', 'HAS_PARENT', 'INFO'),
    f('Dnssec02', 'DS02_NO_MATCH_DS_DNSKEY', 'WARNING'),
    f('Zone02', 'REFRESH_MINIMUM_VALUE_LOWER', 'WARNING', { refresh: 1 }),
  ];
  const c = compareFindings(reference, ours);
  assert.deepEqual(c.agree, ['BASIC01 HAS_PARENT INFO', 'ZONE02 REFRESH_MINIMUM_VALUE_LOWER WARNING']);
  assert.deepEqual(c.missing, ['DNSSEC02 DS02_NO_MATCH_DS_DNSKEY ERROR']);
  assert.deepEqual(c.extra, ['DNSSEC02 DS02_NO_MATCH_DS_DNSKEY WARNING']);
  assert.equal(c.agreement, 50);
  assert.equal(compareFindings([], []).agreement, 100);
});

test('findings compare with their arguments as multisets: names without case, lists without order, clock values by presence', () => {
  const reference = [
    f('DNSSEC01', 'DS01_DS_ALGO_OK', 'INFO', { ns_list: 'ns2.X.test/192.0.2.2;ns1.x.test/192.0.2.1', keytag: 1 }),
    f('DNSSEC04', 'REMAINING_LONG', 'WARNING', { duration: 86400 }),
    f('NAMESERVER04', 'SAME_SOURCE_IP', 'INFO', { names: 'b/2,a/1' }),
    f('NAMESERVER04', 'SAME_SOURCE_IP', 'INFO', { names: 'b/2,a/1' }),
    f('ZONE11', 'Z11_SPF1_SYNTAX_ERROR', 'ERROR', { message: 'Bad Term, here' }),
  ];
  const ours = [
    f('DNSSEC01', 'DS01_DS_ALGO_OK', 'INFO', { ns_list: 'ns1.x.test/192.0.2.1;ns2.x.test/192.0.2.2', keytag: '1' }),
    f('DNSSEC04', 'REMAINING_LONG', 'WARNING', { duration: 86390 }),
    f('NAMESERVER04', 'SAME_SOURCE_IP', 'INFO', { names: 'a/1,b/2' }),
    f('ZONE11', 'Z11_SPF1_SYNTAX_ERROR', 'ERROR', { message: 'here, Bad Term' }),
  ];
  const a = compareFindings(reference, ours).arguments;
  assert.equal(a.agree.length, 3, 'a repeat counts: the second SAME_SOURCE_IP is missing');
  assert.deepEqual(
    a.missing.map((k) => k.split(' ')[1]),
    ['SAME_SOURCE_IP', 'Z11_SPF1_SYNTAX_ERROR'],
  );
  assert.deepEqual(
    a.extra.map((k) => k.split(' ')[1]),
    ['Z11_SPF1_SYNTAX_ERROR'],
    'text with spaces is no list',
  );
  assert.equal(a.agreement, 50);
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
  assert.match(lines[2], /^one\s+one\.test\.\s+2\s+1\s+1\s+1\s+0\s+50\.0%\s+50\.0%$/);
  assert.match(lines[4], /^three\s+three\.test\.\s+2\s+n\/a\s+-\s+-\s+-\s+n\/a\s+n\/a$/);
  assert.match(lines[5], /^total\s+3\s+1\s+0\s+75\.0%\s+75\.0%$/);
  // Totals per module (a test case's name without its number), then the notes.
  assert.match(lines[7], /^module\s+agree\s+missing\s+extra\s+arguments$/);
  assert.match(lines[9], /^A\s+3\s+1\s+0\s+75\.0%$/);
  assert.equal(lines.at(-1), 'note: engine absent');
});

const unavailable = (await labUnavailableReason()) ?? referenceUnavailableReason();
if (unavailable !== undefined) console.log(`# skipping differential runs: ${unavailable}`);

/** The reference limited to one module: a real second engine whose findings are a known subset. */
const dnssecOnly: Checker = {
  name: 'zonemaster-cli (DNSSEC only)',
  async run(lab, domain) {
    const result = await execReference(lab, [
      '--hints',
      '{hints}',
      '--json',
      '--show-testcase',
      '--show-module',
      '--level',
      'INFO',
      '--no-progress',
      '--test',
      'DNSSEC',
      commandLineDomain(domain),
    ]);
    const findings = parseFindings(result.stdout, 'zonemaster-cli').filter((x) => x.module.toUpperCase() === 'DNSSEC');
    return { ok: true, findings, version: 'dnssec-only', seconds: 0 };
  },
};

test(
  'a differential run in a lab: the reference finds the wrong DS, and a partial engine shows as missing findings',
  { skip: unavailable ?? false },
  async () => {
    const [row] = await runDiff(['wrong-ds'], { ours: dnssecOnly });
    assert.ok(row?.reference.ok, row?.reference.ok === false ? row.reference.reason : '');
    assert.match(row.reference.version, /^zonemaster-cli v9\./);
    const c = row.comparison!;
    assert.ok(c.agree.includes('DNSSEC02 DS02_NO_MATCH_DS_DNSKEY ERROR'), c.agree.join('\n'));
    assert.ok(c.agree.every((k) => k.startsWith('DNSSEC')));
    assert.ok(
      c.missing.some((k) => k.startsWith('BASIC01 ')),
      'what the partial engine lacks is missing',
    );
    assert.deepEqual(c.extra, []);
    assert.ok(c.agreement > 0 && c.agreement < 100);
    const report = scenarioReport(row);
    assert.match(report, /Scenario wrong-ds, domain wrongds\.test\./);
    assert.match(report, /Missing from ours \(\d+\):\n(?: {2}.*\n)* {2}BASIC01 B01_PARENT_FOUND INFO\n/);
    assert.match(report, /Agreement: \d+\.\d%/);
  },
);

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
