// dnscheck --nagios against real name servers: a healthy zone is OK (0), a zone with a warning is
// WARNING (1), broken zones are CRITICAL (2), and a check that cannot run is UNKNOWN (3), each as one
// status line with performance data. Lab addresses are documentation ranges in one AS, which the
// default profile rightly calls errors; the lab profile here rates those two findings INFO.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { labUnavailableReason, startLab, type Lab } from '@app/lab';

const dnscheck = resolve(import.meta.dirname, '../packages/engine/bin/dnscheck.js');
const skipReason = await labUnavailableReason();

/** The status line of the Monitoring Plugins guidelines: service, state, text, then perfdata after '|'. */
const statusLine = /^DNSCHECK (OK|WARNING|CRITICAL|UNKNOWN) - (.+?)(?: \| (.+))?$/;

interface Check {
  code: number | null;
  state: string;
  text: string;
  perf: Map<string, string>;
  stdout: string;
}

describe('dnscheck --nagios in the lab', { skip: skipReason ?? false }, () => {
  let lab: Lab;
  let profile: string;

  const check = async (args: string[]): Promise<Check> => {
    const { stdout, code } = await lab.exec(process.execPath, [dnscheck, ...args], { timeoutMs: 120_000 });
    const lines = stdout.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, `one status line: ${stdout}`);
    const match = statusLine.exec(lines[0]);
    assert.ok(match, `a plugin status line: ${lines[0]}`);
    const perf = new Map(
      (match[3] ?? '')
        .split(' ')
        .filter(Boolean)
        .map((item) => item.split('=') as [string, string]),
    );
    return { code, state: match[1], text: match[2], perf, stdout };
  };
  const zone = (domain: string) => [domain, '--hints', lab.hintsPath, '--profile', profile, '--nagios'];

  before(async () => {
    lab = await startLab(['healthy-signed', 'bad-soa-timers', 'single-nameserver', 'basic-silent']);
    const dir = await mkdtemp(join(tmpdir(), 'dnscheck-nagios-'));
    const { stdout } = await promisify(execFile)(process.execPath, [dnscheck, '--dump-profile']);
    const labProfile = JSON.parse(stdout) as { test_levels: Record<string, Record<string, string>> };
    // The lab's documentation addresses, in one AS and one prefix per family, say nothing of its zones.
    for (const tag of ['A01_DOCUMENTATION_ADDR', 'A01_NO_GLOBALLY_REACHABLE_ADDR']) labProfile.test_levels.ADDRESS[tag] = 'INFO';
    for (const tag of [
      'IPV4_ONE_ASN',
      'IPV6_ONE_ASN',
      'CN04_IPV4_SINGLE_PREFIX',
      'CN04_IPV6_SINGLE_PREFIX',
      'CN04_IPV4_SAME_PREFIX',
      'CN04_IPV6_SAME_PREFIX',
    ])
      labProfile.test_levels.CONNECTIVITY[tag] = 'INFO';
    // Nor does its unsigned test. zone, which can hold no signed DS (9.0.1's DNSSEC07 warns of that).
    for (const tag of ['DS07_NO_DS_ON_PARENT_SERVER', 'DS07_NO_DS_FOR_SIGNED_ZONE']) labProfile.test_levels.DNSSEC[tag] = 'INFO';
    profile = join(dir, 'lab-profile.json');
    await writeFile(profile, JSON.stringify(labProfile));
  });
  after(async () => {
    await lab?.stop();
  });

  test('a healthy zone is OK, exit 0, with counts per level and the run time as performance data', async () => {
    const healthy = await check(zone('healthy.test'));
    assert.equal(healthy.code, 0, healthy.stdout);
    assert.equal(healthy.state, 'OK');
    assert.equal(healthy.text, 'healthy.test: no problems found');
    assert.deepEqual([...healthy.perf.keys()], ['critical', 'error', 'warning', 'notice', 'info', 'time']);
    for (const level of ['critical', 'error', 'warning']) assert.equal(healthy.perf.get(level), '0;;;0');
    assert.match(healthy.perf.get('info')!, /^[1-9]\d*;;;0$/);
    assert.match(healthy.perf.get('time')!, /^\d+\.\d{3}s;;;0$/);
  });

  test('a zone whose worst finding is a WARNING is WARNING, exit 1, naming it', async () => {
    const timers = await check(zone('timers.test'));
    assert.equal(timers.code, 1, timers.stdout);
    assert.equal(timers.state, 'WARNING');
    // Engine 9.0.1 warns of an unsigned zone too (DNSSEC07, two findings) beside its expire timer;
    // the line names the first warning in the engine's order.
    assert.match(timers.text, /^timers\.test: 3 WARNING; These name servers serve no signed DNSKEY set/);
    assert.equal(timers.perf.get('warning'), '3;;;0');
    assert.equal(timers.perf.get('error'), '0;;;0');
  });

  test('broken zones are CRITICAL, exit 2: errors (one name server) and a critical (no server answers)', async () => {
    const single = await check(zone('single.test'));
    assert.equal(single.code, 2, single.stdout);
    assert.equal(single.state, 'CRITICAL');
    assert.match(single.text, /^single\.test: 6 ERROR, 2 WARNING; /);
    assert.equal(single.perf.get('error'), '6;;;0');
    const silent = await check(zone('silent.test'));
    assert.equal(silent.code, 2, silent.stdout);
    assert.match(silent.text, /^silent\.test: 1 CRITICAL, 5 ERROR, 5 WARNING; /);
    assert.equal(silent.perf.get('critical'), '1;;;0');
  });

  test('a check that cannot run is UNKNOWN, exit 3, on stdout', async () => {
    const badArgs = await check(['healthy.test', '--nagios', '--json']);
    assert.equal(badArgs.code, 3);
    assert.equal(badArgs.text, '--nagios and --json cannot be combined');
    const noHints = await check(['healthy.test', '--hints', '/nonexistent/hints', '--nagios']);
    assert.equal(noHints.code, 3);
    assert.match(noHints.text, /cannot read the hints file \/nonexistent\/hints/);
  });
});
