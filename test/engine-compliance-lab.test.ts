// The Compliance module (genreport's EDNS and FULL tests, DNS cookies) on the four implementations
// the lab runs (BIND, Knot DNS, NSD, PowerDNS) and on our responder misbehaving in each way a test
// is there to catch: every test must fail somewhere, each for the reason its server was given.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { protocolTests } from '@app/engine';
import { loadScenario } from '@app/lab';
import { useLab } from '@app/lab/testing';
import { oracle, type OracleServer } from './support/compliance-oracle.ts';
import { ours, type Finding } from './support/lab-engines.ts';

const quirks = resolve(import.meta.dirname, 'scenarios/compliance-quirks.yaml');
const implementations = {
  bind: 'healthy.test',
  knot: 'healthy-knot.test',
  nsd: 'healthy-nsd.test',
  powerdns: 'healthy-powerdns.test',
} as const;
const scenarios = ['healthy-signed', 'knot-healthy-signed', 'nsd-healthy-signed', 'powerdns-healthy-signed', quirks];
const shared = await useLab(scenarios);
const { skip } = shared;

const ednsGroup = ['dns', 'edns', 'edns1', 'edns@512', 'ednsopt', 'edns1opt', 'do', 'ednsflags', 'optlist', 'signed', 'ednstcp'];
const fullGroup = [
  'aa',
  'ad',
  'cd',
  'ra',
  'rd',
  'tc',
  'zflag',
  'opcode',
  'opcodeflg',
  'type666',
  'tcp',
  'docd',
  'edns1do',
  'ednsnsid',
  'ednscookie',
  'ednsexpire',
  'ednssubnet',
  'edns1nsid',
  'edns1cookie',
  'edns1expire',
  'edns1subnet',
  'dnswkk',
  'bind11',
  'dig11',
];

/** server ('ns1/192.0.2.10', its zone's labels left out) → test → result. */
async function results(domain: string): Promise<{ table: Map<string, Map<string, string>>; findings: Finding[] }> {
  const findings = (await ours(shared.lab, domain, '--test', 'Compliance')).filter((f) => f.module === 'COMPLIANCE');
  const table = new Map<string, Map<string, string>>();
  for (const f of findings.filter((f) => f.tag.startsWith('PROTOCOL_TEST_') || f.tag === 'PROTOCOL_FEATURE_ABSENT')) {
    const ns = String(f.args.ns).replace(`.${domain}/`, '/');
    if (!table.has(ns)) table.set(ns, new Map());
    table.get(ns)!.set(String(f.args.test), String(f.args.result));
  }
  return { table, findings };
}

const passes = (result: string): boolean => result === 'ok' || result.startsWith('ok,');

test(
  'every address of every implementation gets a result for each test of the EDNS and FULL groups',
  { skip, timeout: 600_000 },
  async () => {
    for (const [implementation, domain] of Object.entries(implementations)) {
      const { table } = await results(domain);
      assert.equal(table.size, 4, `${implementation}: two servers, two addresses each`);
      for (const [ns, tests] of table)
        assert.deepEqual([...tests.keys()].sort(), [...ednsGroup, ...fullGroup].sort(), `${implementation} ${ns}`);
    }
  },
);

// dnswkk signs with a key no server should know: NOTAUTH with BADKEY is the answer to expect, and
// genreport words it as a failure all the same.
test(
  'BIND passes every test but dnswkk; Knot, NSD and PowerDNS pass the EDNS group (DNS Flag Day)',
  { skip, timeout: 600_000 },
  async () => {
    for (const [implementation, domain] of Object.entries(implementations)) {
      const { table } = await results(domain);
      for (const [ns, tests] of table) {
        if (implementation === 'bind') assert.equal(tests.get('dnswkk'), 'notauth,badkey', ns);
        const failing = [...tests].filter(
          ([name, result]) => (implementation === 'bind' || ednsGroup.includes(name)) && name !== 'dnswkk' && !passes(result),
        );
        assert.deepEqual(failing, [], `${implementation} ${ns}`);
        assert.equal(tests.get('signed'), 'ok,yes', `${implementation} ${ns}: the zone is signed`);
      }
    }
  },
);

// Each misbehaving server, and the results its misbehaviour must give (other tests may fail too).
const expected: Record<string, Record<string, string>> = {
  'ns-refused': { dns: 'refused', edns: 'refused', tcp: 'refused', opcode: 'refused' },
  'ns-noopt': { edns: 'noopt', do: 'noopt', 'edns@512': 'noopt', ednstcp: 'noopt', edns1: 'noerror,noopt,soa' },
  'ns-edns-formerr': { edns: 'formerr,noopt', ednsflags: 'formerr,noopt', dns: 'ok' },
  'ns-no-badvers': { edns1: 'noerror,badversion,soa', edns1opt: 'noerror,badversion,soa', edns: 'ok' },
  'ns-drop-v1': { edns1: 'timeout', edns1do: 'timeout', edns: 'ok' },
  'ns-option-echo': { ednsopt: 'echoed', edns1opt: 'echoed', edns: 'ok' },
  'ns-mbz': { ednsflags: 'mbz', edns: 'ok' },
  'ns-header-echo': { zflag: 'z', opcodeflg: 'aa,ra,z', dns: 'ok' },
  'ns-flags-formerr': { aa: 'formerr', ad: 'formerr', cd: 'formerr', ra: 'formerr', tc: 'formerr', zflag: 'ok' },
  'ns-rd-cleared': { rd: 'nord', dig11: 'nord,cookie', dns: 'ok' },
  'ns-rd-set': { dns: 'rd', edns: 'rd', rd: 'ok', dig11: 'ok,cookie' },
  'ns-opcode': { opcode: 'noerror', dns: 'ok' },
  'ns-opcode-drop': { opcode: 'timeout', opcodeflg: 'timeout', dns: 'ok' },
  'ns-type666': { type666: 'timeout', dns: 'ok' },
  'ns-no-tcp': { tcp: 'connection-refused', ednstcp: 'connection-refused', edns: 'ok' },
  'ns-toobig': { 'edns@512': 'toobig', edns: 'ok' },
  'ns-nodo': { do: 'nodo', signed: 'nodo,yes', docd: 'nodo' },
  'ns-nocd': { docd: 'nocd', do: 'ok' },
  'ns-options': {
    optlist: 'timeout',
    ednsnsid: 'formerr',
    ednsexpire: 'timeout',
    ednssubnet: 'noopt',
    ednscookie: 'formerr',
    edns1nsid: 'formerr,badversion',
    bind11: 'formerr',
    edns: 'ok',
  },
  'ns-cookie-client': { ednscookie: 'cookie-mismatch', bind11: 'cookie-mismatch', edns: 'ok' },
};

test(
  'each misbehaviour of the responder fails the tests made to catch it, with genreport’s words',
  { skip, timeout: 600_000 },
  async () => {
    const { table } = await results('compliance-quirks.test');
    for (const [server, want] of Object.entries(expected)) {
      const got = table.get(`${server}/${[...table.keys()].find((k) => k.startsWith(`${server}/`))?.split('/')[1]}`);
      assert.ok(got, `${server} was tested`);
      for (const [name, result] of Object.entries(want)) assert.equal(got.get(name), result, `${server} ${name}`);
    }
    const honest = [...table].find(([ns]) => ns.startsWith('ns1/'))![1];
    assert.deepEqual(
      [...honest].filter(([name, result]) => name !== 'dnswkk' && !passes(result)),
      [],
      'the honest server passes',
    );
  },
);

test('every test fails on at least one server of the lab', { skip, timeout: 600_000 }, async () => {
  const failing = new Set<string>();
  for (const domain of [...Object.values(implementations), 'compliance-quirks.test']) {
    for (const tests of (await results(domain)).table.values()) for (const [name, result] of tests) if (!passes(result)) failing.add(name);
  }
  assert.deepEqual(
    [...ednsGroup, ...fullGroup].filter((name) => !failing.has(name)),
    [],
  );
});

test(
  'cookies: a server cookie that comes back, is accepted, and is replaced when wrong (RFC 7873, RFC 9018)',
  { skip, timeout: 600_000 },
  async () => {
    const { findings } = await results('compliance-quirks.test');
    const tagOf = (server: string): string[] =>
      findings.filter((f) => f.testcase === 'Compliance03' && String(f.args.ns).startsWith(`${server}.`)).map((f) => f.tag);
    // ns1 and ns1-alias share an address: asked once (by the first name), the other name given its cookie takes it.
    assert.deepEqual(
      findings.filter((f) => f.testcase === 'Compliance03' && String(f.args.ns).endsWith('/2001:db8:5c00::1')).map((f) => f.tag),
      ['COOKIE_OK'],
    );
    assert.equal(findings.filter((f) => f.tag === 'COOKIE_SHARED_ADDRESS_REJECTED').length, 0);
    assert.ok(
      findings.some((f) => f.testcase === 'Compliance02' && String(f.args.ns).startsWith('ns1-alias.')),
      'ns1-alias is tested as a server of its own',
    );
    assert.deepEqual(tagOf('ns-cookie-client'), ['COOKIE_CLIENT_NOT_ECHOED']);
    assert.deepEqual(tagOf('ns-cookie-short'), ['COOKIE_BAD_LENGTH']);
    assert.deepEqual(tagOf('ns-cookie-bad'), ['COOKIE_VALID_REJECTED']);
    assert.deepEqual(tagOf('ns-cookie-stale'), ['COOKIE_WRONG_MISHANDLED']);
    assert.deepEqual(tagOf('ns-noopt'), ['COOKIE_NOT_SUPPORTED']);
    // Knot, NSD and PowerDNS as Debian configures them send no cookies; BIND does.
    const bind = (await results('healthy.test')).findings
      .filter((f) => f.testcase === 'Compliance03' && f.tag.startsWith('COOKIE_'))
      .map((f) => f.tag);
    assert.deepEqual([...new Set(bind)], ['COOKIE_OK']);
  },
);

/** The zone's servers (and their aliases) at each of their addresses, as the scenarios declare them. */
function serversOf(zone: string): OracleServer[] {
  const world = loadScenario(scenarios);
  const names = world.zones.find((z) => z.origin === `${zone}.`)!.servers;
  // A server's aliases are name servers of the zone too (its NS records name them).
  return world.servers
    .filter((s) => names.includes(s.name))
    .flatMap((s) => [s.name, ...s.aliases].flatMap((name) => s.addresses.map((address) => ({ ns: name.replace(/\.$/, ''), address }))));
}

test(
  'our verdicts equal the dig oracle (test/reference-compliance/) for every server and test',
  { skip, timeout: 1_800_000 },
  async (t) => {
    const differences: string[] = [];
    let pairs = 0;
    for (const zone of [...Object.values(implementations), 'compliance-quirks.test']) {
      const recorded = await oracle(shared.lab, zone, serversOf(zone), protocolTests);
      const findings = (await ours(shared.lab, zone, '--test', 'Compliance')).filter(
        (f) => f.tag.startsWith('PROTOCOL_TEST_') || f.tag === 'PROTOCOL_FEATURE_ABSENT',
      );
      for (const [server, tests] of Object.entries(recorded.results)) {
        for (const [name, result] of Object.entries(tests)) {
          pairs++;
          const got = findings.find((f) => f.args.ns === server && f.args.test === name)?.args.result;
          if (got !== result) differences.push(`${server} ${name}: dig says ${result}, we say ${String(got)}`);
        }
      }
    }
    t.diagnostic(`${pairs - differences.length} of ${pairs} (server, test) pairs agree`);
    assert.deepEqual(differences, []);
  },
);
