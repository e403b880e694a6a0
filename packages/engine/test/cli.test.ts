import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
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

test('--help explains every option on stdout and exits 0, whatever else is on the line', async () => {
  const { stdout, stderr } = await run(process.execPath, [cli, 'example.com', '--level', 'LOUD', '--help']);
  assert.equal(stderr, '');
  assert.match(stdout, /^dnscheck: /);
  for (const option of ['--ns', '--ds', '--profile', '--hints', '--level', '--locale', '--json', '--no-ipv4', '--no-ipv6', '--test']) assert.match(stdout, new RegExp(`^  .*${option}\\b`, 'm'), option);
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
});

test('JSON output has one element per finding, with text, and the exit code follows the worst level', async () => {
  const hints = await fixture('hints', '. NS a.root.invalid.\na.root.invalid. A 127.0.0.255\n');
  const result = await capture(['A..Example', '--json', '--hints', hints, '--locale', 'fr']);
  assert.equal(result.code, 5, 'CRITICAL gives 5');
  const findings = JSON.parse(result.stdout) as { module: string; testcase: string; tag: string; level: string; message: string }[];
  const fault = findings.find((f) => f.tag === 'DOMAIN_NAME_ZERO_LENGTH_LABEL');
  assert.ok(fault);
  assert.equal(fault.testcase, 'Basic00');
  assert.equal(fault.message, 'Le nom a..example contient un label vide (deux points à la suite).');
  assert.match(result.stderr, /progress 100%/);
});

test('the table shows findings at or above the chosen level', async () => {
  const hints = await fixture('hints', '. NS a.root.invalid.\na.root.invalid. A 127.0.0.255\n');
  const result = await capture(['a..example', '--hints', hints, '--level', 'CRITICAL']);
  const lines = result.stdout.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /^Seconds\s+Level\s+Module\s+Testcase\s+Message$/);
  assert.ok(lines.slice(2).every((line) => line.includes('CRITICAL')), result.stdout);
  assert.ok(lines.some((line) => line.includes('empty label')));
  assert.ok(!result.stdout.includes('GLOBAL_VERSION') && !result.stdout.includes('engine version'));
});
