import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { main } from '../src/cli/main.ts';

const cli = join(import.meta.dirname, '../bin/dnscheck.js');
const run = promisify(execFile);

async function capture(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), interactive: false });
  return { code, stdout, stderr };
}

async function fixture(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dnscheck-'));
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

test('a bad argument prints one error line and the usage, and exits 2', async () => {
  const result = await run(process.execPath, [cli, 'example.com', '--level', 'LOUD']).then(
    () => assert.fail('should fail'),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  assert.equal(result.code, 2);
  assert.equal(result.stdout, '');
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines[0], 'dnscheck: --level LOUD: not a severity level');
  assert.match(lines[1] ?? '', /^usage: dnscheck <domain>/);
});

test('a mistyped option is named with the one it most likely meant; a missing value is named too', async () => {
  const firstLine = async (...args: string[]): Promise<string> =>
    run(process.execPath, [cli, 'example.com', ...args]).then(
      () => assert.fail(`${args.join(' ')} should fail`),
      (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 2);
        return error.stderr.split('\n')[0] ?? '';
      },
    );
  assert.equal(await firstLine('--lvel', 'INFO'), 'dnscheck: unknown option --lvel (did you mean --level?)');
  assert.equal(
    await firstLine('--show_testcase'),
    'dnscheck: unknown option --show_testcase (did you mean --show-testcase?)',
    "zonemaster-cli's spelling",
  );
  assert.equal(await firstLine('--frobnicate'), 'dnscheck: unknown option --frobnicate');
  assert.equal(await firstLine('--level'), 'dnscheck: --level needs a value');
  assert.equal(await firstLine('--json=yes'), 'dnscheck: --json takes no value');
});

test('--help explains every option on stdout and exits 0, whatever else is on the line', async () => {
  const { stdout, stderr } = await run(process.execPath, [cli, 'example.com', '--level', 'LOUD', '--help']);
  assert.equal(stderr, '');
  assert.match(stdout, /^dnscheck: /);
  const options = [
    '--ns',
    '--ds',
    '--profile',
    '--hints',
    '--level',
    '--locale',
    '--json',
    '--no-ipv4',
    '--no-ipv6',
    '--test',
    '--version',
    '--list-tests',
    '--dump-profile',
    '--stop-level',
    '--count',
    '--elapsed',
    '--show-module',
    '--show-testcase',
    '--no-progress',
    '--json-stream',
    '--raw',
    '--save',
    '--restore',
  ];
  for (const option of options) assert.match(stdout, new RegExp(`^  .*${option}\\b`, 'm'), option);
  assert.match(stdout, /Exit code: 0 when/);
});

test('unreadable profile and hints files are bad arguments too', async () => {
  const missing = await capture(['example.com', '--profile', '/nonexistent/profile.json']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^dnscheck: cannot read the profile file \/nonexistent\/profile\.json: ENOENT\n/);
  const badProfile = await capture(['example.com', '--profile', await fixture('p.json', '{"net": {"ipv4": 1}}')]);
  assert.match(badProfile.stderr, /net\.ipv4 must be true or false/);
  const badHints = await capture(['example.com', '--hints', await fixture('hints', '. NS a.root.\na.root. A nonsense\n')]);
  assert.match(badHints.stderr, /line 2/);
  const badIdn = await capture(['-bad-.example']);
  assert.equal(badIdn.code, 2);
  const noCa = await capture(['example.com', '--tls-ca', '/nonexistent/ca.pem']);
  assert.equal(noCa.code, 2);
  assert.match(noCa.stderr, /^dnscheck: cannot read the TLS CA file \/nonexistent\/ca\.pem: ENOENT\n/);
  const notPem = await capture(['example.com', '--tls-ca', await fixture('ca.txt', 'not a certificate')]);
  assert.equal(notPem.code, 2);
  assert.match(notPem.stderr, /no PEM certificate/);
});

// Both IP families off: the run ends at once with one CRITICAL finding outside any test case.
const noNetwork = ['--no-ipv4', '--no-ipv6'];

test('JSON output has one element per finding, with text, and the exit code follows the worst level', async () => {
  const result = await capture(['Example', '--json', ...noNetwork, '--locale', 'fr']);
  assert.equal(result.code, 5, 'CRITICAL gives 5');
  const findings = JSON.parse(result.stdout) as { module: string; testcase: string; tag: string; level: string; message: string }[];
  const fault = findings.find((f) => f.tag === 'NO_NETWORK');
  assert.ok(fault);
  assert.equal(fault.testcase, 'Unspecified', 'spelled as the reference (9.0.1) spells it');
  assert.equal(fault.message, 'IPv4 et IPv6 sont tous deux désactivés : rien ne peut être testé.');
  assert.match(result.stderr, /progress 100%/);
});

test('a name that cannot be tested is a usage error, as in the reference', async () => {
  const result = await capture(['A..Example', '--json']);
  assert.equal(result.code, 2);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^dnscheck: A\.\.Example: the name has an empty label/);
  const long = await capture([`${'a'.repeat(64)}.example`]);
  assert.equal(long.code, 2);
  assert.match(long.stderr, /is 64 characters long; at most 63 are allowed/);
});

test('the table shows findings at or above the chosen level', async () => {
  const result = await capture(['example', ...noNetwork, '--level', 'CRITICAL']);
  const lines = result.stdout.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /^Level\s+Message$/);
  assert.ok(
    lines.slice(2).every((line) => line.includes('CRITICAL')),
    result.stdout,
  );
  assert.ok(lines.some((line) => line.includes('Both IPv4 and IPv6 are turned off')));
  assert.ok(!result.stdout.includes('GLOBAL_VERSION') && !result.stdout.includes('engine version'));
});

const unreachableHints = (): Promise<string> => fixture('hints', '. NS a.root.invalid.\na.root.invalid. A 127.0.0.255\n');
/** A run whose root never answers, waited for one second instead of the default eight. */
const unreachableRoot = async (): Promise<string[]> => [
  'example',
  '--hints',
  await unreachableHints(),
  '--profile',
  await fixture('quick.json', '{"resolver":{"defaults":{"timeout":1,"retry":1}}}'),
];

test('--version names the engine and the DNS library', async () => {
  const { code, stdout } = await capture(['--version']);
  assert.equal(code, 0);
  assert.match(stdout, /^engine \d+\.\d+\.\d+$/m);
  assert.match(stdout, /^@app\/dns \d+\.\d+\.\d+$/m);
  assert.match(stdout, /^follows Zonemaster engine 9\.0\.1 \(zonemaster-cli 8\.0\.1\)$/m, 'the reference the findings follow');
});

test('--list-tests lists every module and test case, described in the chosen locale', async () => {
  const english = await capture(['--list-tests']);
  const swedish = await capture(['--list-tests', '--locale', 'sv']);
  assert.equal(english.code, 0);
  assert.match(english.stdout, /^Module BASIC$/m);
  assert.match(english.stdout, /^ {2}Basic01 +A parent zone delegates the domain$/m);
  assert.ok(!english.stdout.includes('Basic00'), 'the reference (9.0.1) has no Basic00');
  assert.match(swedish.stdout, /^Modul BASIC$/m);
  assert.match(swedish.stdout, /^ {2}Basic01 +\S/m);
  assert.notEqual(swedish.stdout, english.stdout);
  const slovenian = await capture(['--list-tests', '--locale', 'sl']);
  assert.equal(slovenian.code, 0);
  assert.match(slovenian.stdout, /^Modul BASIC$/m);
  assert.match(slovenian.stdout, /^ {2}Basic02 +Vsaj en imenski strežnik domene deluje$/m);
});

test('--dump-profile prints the effective profile: the default under --profile, with --no-ipv6', async () => {
  const profile = await fixture('p.json', JSON.stringify({ test_levels: { BASIC: { NS_FAILED: 'WARNING' } } }));
  const { code, stdout } = await capture(['--dump-profile', '--profile', profile, '--no-ipv6']);
  assert.equal(code, 0);
  const dumped = JSON.parse(stdout) as {
    net: { ipv4: boolean; ipv6: boolean };
    test_levels: Record<string, Record<string, string>>;
    resolver: unknown;
  };
  assert.deepEqual(dumped.net, { ipv4: true, ipv6: false });
  assert.deepEqual(dumped.test_levels.BASIC, { NS_FAILED: 'WARNING' });
  assert.ok(dumped.resolver, 'the default fills what the file leaves out');
});

test("--profile names a shipped profile: default runs the reference's test cases, extended adds Compliance and Zone integrity", async () => {
  const profileOf = async (name: string) =>
    JSON.parse((await capture(['--dump-profile', '--profile', name])).stdout) as {
      test_cases: string[];
      test_levels: Record<string, unknown>;
    };
  const [plain, extended] = [await profileOf('default'), await profileOf('extended')];
  assert.ok(!plain.test_cases.some((id) => id.startsWith('compliance')) && plain.test_levels.COMPLIANCE === undefined);
  assert.ok(!plain.test_cases.some((id) => id.startsWith('zoneintegrity')) && plain.test_levels.ZONE_INTEGRITY === undefined);
  assert.deepEqual(
    extended.test_cases.filter((id) => !plain.test_cases.includes(id)),
    [
      'compliance01',
      'compliance02',
      'compliance03',
      'automation01',
      'automation02',
      'automation03',
      'automation04',
      'zoneintegrity01',
      'zoneintegrity02',
      'transport01',
      'transport02',
      'transport03',
    ],
  );
  assert.ok(extended.test_levels.COMPLIANCE);
  assert.ok(extended.test_levels.AUTOMATION && plain.test_levels.AUTOMATION === undefined);
  assert.ok(extended.test_levels.ZONE_INTEGRITY);
  assert.ok(extended.test_levels.TRANSPORT && plain.test_levels.TRANSPORT === undefined);
});

test('the table speaks the chosen locale, columns come with their switches, --raw shows tags', async () => {
  const french = await capture([
    'example',
    ...noNetwork,
    '--level',
    'CRITICAL',
    '--locale',
    'fr',
    '--show-module',
    '--show-testcase',
    '--elapsed',
    '--no-progress',
  ]);
  const [header = '', rule = '', row = ''] = french.stdout.split('\n');
  assert.match(header, /^Secondes\s+Niveau\s+Module\s+Cas de test\s+Message$/);
  assert.match(rule, /^=+ +=+ +=+ +=+ +=+$/);
  assert.match(row, /^\d+\.\d\d\s+CRITICAL\s+SYSTEM\s+Unspecified\s+IPv4 et IPv6 sont tous deux désactivés/);
  assert.match(french.stdout, /^Temps écoulé : \d+\.\d\d s$/m);
  assert.equal(french.stderr, '', '--no-progress leaves stderr empty');
  const raw = await capture(['example', ...noNetwork, '--level', 'CRITICAL', '--raw', '--no-progress']);
  assert.match(raw.stdout, /^CRITICAL\s+NO_NETWORK\s*$/m);
  const rawJson = await capture(['example', ...noNetwork, '--json', '--raw', '--no-progress']);
  assert.ok((JSON.parse(rawJson.stdout) as object[]).every((f) => !('message' in f)));
});

test('--count sums findings per level, beside the table or on stderr beside JSON', async () => {
  const run = await unreachableRoot();
  const table = await capture([...run, '--level', 'DEBUG', '--count', '--no-progress']);
  const summary = table.stdout.slice(table.stdout.indexOf('Findings per level:'));
  const rows = table.stdout.slice(0, table.stdout.indexOf('Findings per level:')).trimEnd().split('\n').slice(2);
  const critical = rows.filter((line) => line.startsWith('CRITICAL')).length;
  assert.ok(critical > 0);
  assert.match(summary, new RegExp(`^ {2}CRITICAL +${critical}$`, 'm'));
  assert.match(summary, new RegExp(`^ {2}DEBUG +${rows.filter((line) => line.startsWith('DEBUG ')).length}$`, 'm'));
  const json = await capture([...run, '--json', '--count', '--no-progress', '--locale', 'da']);
  assert.ok(Array.isArray(JSON.parse(json.stdout)));
  assert.match(json.stderr, /^Fund pr\. niveau:/m);
});

test('on a terminal progress is one redrawn line with a bar and test cases done of total, cleared at the end', async () => {
  let stderr = '';
  let stdout = '';
  await main(await unreachableRoot(), { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), interactive: true });
  assert.ok(!stderr.includes('\n'), 'no line feeds: the line is redrawn');
  const clearLine = '\r\x1b[2K';
  const frames = stderr.split(clearLine).filter(Boolean);
  assert.ok(frames.length > 0);
  assert.match(frames.at(-1)!, /^\[#{24}\] 100% · \d+ of \d+ test cases · \d+\.\d s$/);
  assert.ok(stderr.endsWith(clearLine), 'the bar is gone before the table');
  assert.match(stdout, /^Level\s+Message$/m);
});

test('a saved run is shown again from the file alone, in another locale and level', async () => {
  const hints = await unreachableHints();
  const dir = await mkdtemp(join(tmpdir(), 'dnscheck-save-'));
  const file = join(dir, 'run.json');
  const live = await capture([...(await unreachableRoot()), '--json', '--level', 'DEBUG', '--save', file, '--no-progress']);
  const restored = await capture(['--restore', file, '--json', '--level', 'DEBUG']);
  assert.equal(restored.code, live.code);
  assert.deepEqual(JSON.parse(restored.stdout), JSON.parse(live.stdout));
  const finnish = await capture(['--restore', file, '--locale', 'fi', '--level', 'CRITICAL']);
  assert.match(finnish.stdout, /^Taso\s+Viesti$/m);
  assert.ok(!finnish.stdout.includes('DEBUG'));
  const notARun = await capture(['--restore', hints]);
  assert.equal(notARun.code, 2);
  assert.match(notARun.stderr, /^dnscheck: .* is not a saved run: not JSON\n/);
  const wrongShape = await capture(['--restore', await fixture('x.json', '{"format":"dnscheck-run","version":1}')]);
  assert.match(wrongShape.stderr, /is not a saved run: engine: /);
});

test('a run with an Automation verdict prints what the parent should publish: under parent_ds in --json, after the table otherwise', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dnscheck-parent-ds-'));
  const file = join(dir, 'run.json');
  await capture([...(await unreachableRoot()), '--json', '--save', file, '--no-progress']);
  const saved = JSON.parse(await readFile(file, 'utf8')) as { findings: object[] };
  const ds = `example.test. 3600 IN DS 12345 13 2 ${'AB'.repeat(32)}`;
  saved.findings.push({
    module: 'AUTOMATION',
    testcase: 'Automation01',
    tag: 'PARENT_DS_PUBLISH',
    level: 'NOTICE',
    args: { count: 1, ds_list: ds },
    timestamp: 1,
  });
  await writeFile(file, JSON.stringify(saved));
  const json = JSON.parse((await capture(['--restore', file, '--json'])).stdout) as {
    parent_ds: { action: string; ds: string[]; reason: string };
  };
  assert.deepEqual({ action: json.parent_ds.action, ds: json.parent_ds.ds }, { action: 'publish', ds: [ds] });
  assert.match(json.parent_ds.reason, /would now publish 1 DS record/);
  const table = (await capture(['--restore', file, '--locale', 'sv'])).stdout;
  assert.match(table, /^Vad föräldern bör publicera \(DS-poster\): publish: /m);
  assert.ok(table.includes(`\n${ds}\n`), 'the record on a line of its own, ready to paste');
});
