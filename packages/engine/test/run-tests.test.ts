// Runner behaviour that needs no name server: the checks on the name itself, the network switches,
// selection, progress and cancellation. Behaviour against real servers is tested in the lab.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runTests, testCaseIds, type Finding } from '../src/index.ts';

// Nothing listens on this loopback address, so every query fails at once and nothing leaves the host.
const deadRoot = [{ name: 'a.root.invalid', address: '127.0.0.255' }];

const tags = (findings: Finding[]): string[] => findings.map((f) => `${f.module}:${f.tag}:${f.level}`);

test('a name with a label over 63 characters stops after Basic00', async () => {
  const label = 'a'.repeat(64);
  const findings = await runTests({ domain: `${label}.example` }, { rootHints: deadRoot });
  const fault = findings.find((f) => f.tag === 'DOMAIN_NAME_LABEL_TOO_LONG');
  assert.ok(fault, tags(findings).join(' '));
  assert.equal(fault.level, 'CRITICAL');
  assert.equal(fault.testcase, 'Basic00');
  assert.deepEqual(fault.args, { domain: `${label}.example`, label, dlength: 64, max: 63 });
  assert.ok(!findings.some((f) => f.testcase === 'Basic01'), 'Basic01 must not run');
  assert.ok(findings.some((f) => f.tag === 'CANNOT_CONTINUE' && f.level === 'CRITICAL'));
});

test('an empty label and an overlong name are reported', async () => {
  const findings = await runTests({ domain: 'a..example' }, { rootHints: deadRoot });
  assert.ok(findings.some((f) => f.tag === 'DOMAIN_NAME_ZERO_LENGTH_LABEL' && f.args.domain === 'a..example'));
  const long = Array.from({ length: 5 }, () => 'b'.repeat(60)).join('.');
  const more = await runTests({ domain: long }, { rootHints: deadRoot });
  const tooLong = more.find((f) => f.tag === 'DOMAIN_NAME_TOO_LONG');
  assert.equal(tooLong?.args.fqdnlength, long.length + 1);
});

test('with IPv4 and IPv6 both off nothing is sent and the run says so', async () => {
  const findings = await runTests({ domain: 'example.com', ipv4: false, ipv6: false });
  assert.deepEqual(tags(findings), ['SYSTEM:GLOBAL_VERSION:INFO', 'SYSTEM:NO_NETWORK:CRITICAL']);
});

test('progress rises from 0 to 100 and never goes down', async () => {
  const seen: number[] = [];
  await runTests({ domain: 'a..example' }, { rootHints: deadRoot, onProgress: (p) => seen.push(p) });
  assert.equal(seen[0], 0);
  assert.equal(seen.at(-1), 100);
  assert.deepEqual(seen, [...seen].sort((a, b) => a - b));
  assert.equal(new Set(seen).size, seen.length, 'no repeats');
});

test('an aborted run rejects with the abort reason', async () => {
  const controller = new AbortController();
  controller.abort(new Error('stopped by the test'));
  await assert.rejects(runTests({ domain: 'example.com' }, { rootHints: deadRoot, signal: controller.signal }), /stopped by the test/);
  await assert.rejects(runTests({ domain: 'example.com' }, { rootHints: deadRoot, signal: AbortSignal.timeout(1) }), (e: Error) => e.name === 'TimeoutError');
});

test('selecting unknown modules or test cases is reported', async () => {
  const findings = await runTests({ domain: 'a..example' }, { rootHints: deadRoot, only: ['Nosuch', 'Basic/Basic99', 'Basic/Basic00'] });
  assert.ok(findings.some((f) => f.tag === 'UNKNOWN_MODULE' && f.args.module === 'Nosuch'));
  assert.ok(findings.some((f) => f.tag === 'UNKNOWN_METHOD' && f.args.testcase === 'Basic99'));
  assert.ok(findings.some((f) => f.tag === 'DOMAIN_NAME_ZERO_LENGTH_LABEL'));
  assert.ok(!findings.some((f) => f.tag === 'CANNOT_CONTINUE'), 'a selected run has no gate');
});

test('test case ids follow the reference order and naming', () => {
  const ids = testCaseIds();
  assert.deepEqual(ids.slice(0, 4), ['Basic00', 'Basic01', 'Basic02', 'Basic03']);
});

test('when no root server answers, the run says so instead of blaming the delegation', async () => {
  const findings = await runTests({ domain: 'example.com' }, { rootHints: deadRoot });
  const lost = findings.find((f) => f.tag === 'ROOT_SERVERS_UNREACHABLE');
  assert.equal(lost?.level, 'CRITICAL');
  assert.equal(lost?.testcase, 'Basic01');
  assert.equal(lost?.args.ns_list, 'a.root.invalid/127.0.0.255');
  assert.ok(!findings.some((f) => ['NO_PARENT', 'NO_GLUE_PREVENTS_NAMESERVER_TESTS'].includes(f.tag)), tags(findings).join(' '));
  assert.ok(findings.some((f) => f.tag === 'CANNOT_CONTINUE'));
});
