// Runner behaviour that needs no name server: the checks on the name itself, the network switches,
// selection, progress and cancellation. Behaviour against real servers is tested in the lab.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainNameError, loadProfile, runTests, testCaseIds, type Finding } from '../src/index.ts';

// Nothing listens on this loopback address, so every query fails at once and nothing leaves the host.
const deadRoot = [{ name: 'a.root.invalid', address: '127.0.0.255' }];
// Waits one second for it instead of the default eight.
const quick = loadProfile({ resolver: { defaults: { timeout: 1, retry: 1 } } });

const tags = (findings: Finding[]): string[] => findings.map((f) => `${f.module}:${f.tag}:${f.level}`);

test('a name with an overlong or empty label, or too long as a whole, is refused before anything is asked', async () => {
  // As in the reference (9.0.1), which has no test case for the name itself any more.
  const label = 'a'.repeat(64);
  await assert.rejects(
    runTests({ domain: `${label}.example` }, { rootHints: deadRoot }),
    (e: Error) => e instanceof DomainNameError && e.message.includes(`label ${label} is 64 characters long`),
  );
  await assert.rejects(
    runTests({ domain: 'a..example' }, { rootHints: deadRoot }),
    (e: Error) => e instanceof DomainNameError && /empty label/.test(e.message),
  );
  const long = Array.from({ length: 5 }, () => 'b'.repeat(60)).join('.');
  await assert.rejects(
    runTests({ domain: long }, { rootHints: deadRoot }),
    (e: Error) => e instanceof DomainNameError && e.message.includes(`${long.length} characters long`),
  );
  const longest = Array.from({ length: 4 }, () => 'c'.repeat(63))
    .join('.')
    .slice(0, 253);
  await assert.doesNotReject(runTests({ domain: longest }, { rootHints: deadRoot, only: ['Nosuch'] }));
});

test('with IPv4 and IPv6 both off nothing is sent and the run says so', async () => {
  const findings = await runTests({ domain: 'example.com', ipv4: false, ipv6: false });
  assert.deepEqual(tags(findings), ['SYSTEM:GLOBAL_VERSION:INFO', 'SYSTEM:NO_NETWORK:CRITICAL']);
});

test('progress rises from 0 to 100 and never goes down', async () => {
  const seen: number[] = [];
  await runTests({ domain: 'example', profile: quick }, { rootHints: deadRoot, onProgress: (p) => seen.push(p) });
  assert.equal(seen[0], 0);
  assert.equal(seen.at(-1), 100);
  assert.deepEqual(
    seen,
    [...seen].sort((a, b) => a - b),
  );
  assert.equal(new Set(seen).size, seen.length, 'no repeats');
});

test('an aborted run rejects with the abort reason', async () => {
  const controller = new AbortController();
  controller.abort(new Error('stopped by the test'));
  await assert.rejects(runTests({ domain: 'example.com' }, { rootHints: deadRoot, signal: controller.signal }), /stopped by the test/);
  await assert.rejects(
    runTests({ domain: 'example.com' }, { rootHints: deadRoot, signal: AbortSignal.timeout(1) }),
    (e: Error) => e.name === 'TimeoutError',
  );
});

test('selecting unknown modules or test cases is reported', async () => {
  const findings = await runTests(
    { domain: 'example', profile: quick },
    { rootHints: deadRoot, only: ['Nosuch', 'Basic/Basic99', 'Basic/Basic00', 'Basic/Basic02'] },
  );
  assert.ok(findings.some((f) => f.tag === 'UNKNOWN_MODULE' && f.args.module === 'Nosuch'));
  assert.ok(findings.some((f) => f.tag === 'UNKNOWN_METHOD' && f.args.testcase === 'Basic99'));
  assert.ok(
    findings.some((f) => f.tag === 'UNKNOWN_METHOD' && f.args.testcase === 'Basic00'),
    'Basic00 left with 4.6',
  );
  assert.ok(
    findings.every((f) => f.testcase === 'Unspecified' || f.testcase === 'Basic02'),
    'only the selected test case runs',
  );
  assert.ok(
    findings.some((f) => f.tag === 'B02_NO_DELEGATION'),
    'Basic02 runs without Basic01 when selected alone',
  );
  assert.ok(
    findings.some((f) => f.tag === 'CANNOT_CONTINUE'),
    'Basic02 selected and failing stops the run, as zonemaster-cli 8.0.1 does',
  );
  const other = await runTests({ domain: 'example', profile: quick }, { rootHints: deadRoot, only: ['Basic/Basic01'] });
  assert.ok(!other.some((f) => f.tag === 'CANNOT_CONTINUE'), 'without Basic02 there is no gate');
});

test('test case ids follow the reference order and naming', () => {
  const ids = testCaseIds();
  assert.deepEqual(ids.slice(0, 4), ['Basic01', 'Basic02', 'Basic03', 'Address01']);
});

test('when no root server answers, the run says so instead of blaming the delegation', async () => {
  const findings = await runTests({ domain: 'example.com' }, { rootHints: deadRoot });
  const lost = findings.find((f) => f.tag === 'ROOT_SERVERS_UNREACHABLE');
  assert.equal(lost?.level, 'CRITICAL');
  assert.equal(lost?.testcase, 'Basic01');
  assert.equal(lost?.args.ns_list, 'a.root.invalid/127.0.0.255');
  // Basic01 still says what 9.0.1 says; Basic02 does not run without the zone.
  assert.deepEqual(
    findings.filter((f) => f.level !== 'DEBUG').map((f) => `${f.testcase}:${f.tag}`),
    [
      'Unspecified:GLOBAL_VERSION',
      'Basic01:B01_PARENT_NOT_FOUND',
      'Basic01:B01_NO_CHILD',
      'Basic01:ROOT_SERVERS_UNREACHABLE',
      'Unspecified:CANNOT_CONTINUE',
    ],
  );
  assert.equal(findings.find((f) => f.tag === 'B01_NO_CHILD')?.args.domain_super, 'com');
});
