// The Transport module (DoT, DoH, same answers over every transport, the RFC 9539 view) against the
// lab's servers that offer encrypted DNS: BIND itself, NSD itself, dnsdist in front of Knot DNS,
// PowerDNS and NSD, with certificates expired, for another name, self-signed, a port 853 that never
// speaks and a TLS front before a stale copy. Our verdicts must equal what kdig, getdns_query and
// openssl observe (test/reference-transports/), and each failure must be found where it was put.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { TransportEntry } from '@app/engine';
import { useLab } from '@app/lab/testing';
import { dnscheck, type Finding } from './support/lab-engines.ts';
import { transportOracle } from './support/transport-oracle.ts';

const quirks = resolve(import.meta.dirname, 'scenarios/transport-quirks.yaml');
const heldOut = resolve(import.meta.dirname, 'scenarios/transport-heldout.yaml');
const zone = 'transport-quirks.test';
// dnsdist fronts Knot DNS and PowerDNS there; without it the lab cannot start.
const noDnsdist = spawnSync('dnsdist', ['--version']).error ? 'dnsdist is not installed (Debian package dnsdist)' : undefined;
if (noDnsdist) console.log(`# skipping the Transport lab tests: ${noDnsdist}`);
const shared = noDnsdist ? { skip: noDnsdist, lab: undefined as never } : await useLab([quirks, heldOut]);
const skip = shared.skip;

const schema = JSON.parse(readFileSync(resolve(import.meta.dirname, '../docs/results.schema.json'), 'utf8')) as { $id: string };
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
ajv.addSchema(schema);

type Run = { findings: Finding[]; transports: TransportEntry[]; seconds: number; printed: unknown };
const runs = new Map<string, Promise<Run>>();

/** One dnscheck run of the Transport module with the lab's CA per zone, shared by the tests. */
function ours(tested = zone): Promise<Run> {
  const known = runs.get(tested);
  if (known) return known;
  const run = (async () => {
    const lab = shared.lab;
    const started = performance.now();
    const result = await lab.exec(
      process.execPath,
      [
        dnscheck,
        tested,
        '--hints',
        lab.hintsPath,
        '--profile',
        'extended',
        '--test',
        'Transport',
        '--json',
        '--level',
        'DEBUG',
        '--raw',
      ].concat(lab.tlsCaPath ? ['--tls-ca', lab.tlsCaPath] : []),
      { timeoutMs: 120_000 },
    );
    assert.ok(result.stdout.trim().startsWith('{'), `dnscheck printed no JSON object (exit ${result.code}): ${result.stderr.slice(-400)}`);
    const printed = JSON.parse(result.stdout) as { findings: Finding[]; transports: TransportEntry[] };
    return { ...printed, printed, seconds: (performance.now() - started) / 1000 };
  })();
  runs.set(tested, run);
  return run;
}

const server = (label: string): string => `${label}.${zone}`;
const tagsAt = (findings: Finding[], label: string): string[] =>
  findings.filter((f) => String(f.args.ns).startsWith(`${server(label)}/`)).map((f) => f.tag);

test('each failure is found at the server that has it', { skip, timeout: 300_000 }, async () => {
  const { findings } = await ours();
  const expected: Record<string, string[]> = {
    'ns-ok': ['DOT_CERT_VALID', 'RFC9539_AUTHENTICATED', 'TRANSPORT_SAME_ANSWERS'],
    'ns-expired': ['DOT_CERT_EXPIRED', 'DOH_CERT_INVALID', 'RFC9539_OPPORTUNISTIC_ONLY'],
    'ns-wrong-name': ['DOT_CERT_WRONG_NAME', 'DOH_CERT_INVALID', 'RFC9539_OPPORTUNISTIC_ONLY'],
    'ns-self-signed': ['DOT_CERT_UNTRUSTED', 'DOH_NOT_OFFERED', 'RFC9539_OPPORTUNISTIC_ONLY'],
    'ns-nsd': ['DOT_NO_ALPN', 'DOT_CERT_VALID', 'DOH_NOT_OFFERED'],
    'ns-silent': ['DOT_TIMEOUT', 'RFC9539_NOT_USED'],
    'ns-plain': ['DOT_NOT_OFFERED', 'DOH_NOT_OFFERED', 'RFC9539_NOT_USED'],
    'ns-knot': ['DOT_CERT_VALID', 'DOH_RESULT', 'RFC9539_AUTHENTICATED'],
    'ns-powerdns': ['DOT_CERT_EXPIRED', 'DOH_CERT_INVALID'],
    'ns-doh-only': ['DOT_NOT_OFFERED', 'DOH_RESULT', 'RFC9539_NOT_USED'],
    'ns-stale': ['TRANSPORT_SERIAL_DIFFERS', 'TRANSPORT_NS_DIFFERS'],
    'ns-nsd-dnsdist': ['DOT_CERT_UNTRUSTED', 'DOH_CERT_INVALID'],
  };
  const missing = Object.entries(expected).flatMap(([label, tags]) =>
    tags.filter((tag) => !tagsAt(findings, label).includes(tag)).map((tag) => `${label}: ${tag}`),
  );
  assert.deepEqual(missing, []);
  // And nothing wrong is said of the healthy one.
  const levels = findings.filter((f) => String(f.args.ns).startsWith(`${server('ns-ok')}/`)).map((f) => f.level);
  assert.ok(
    levels.every((level) => level === 'INFO' || level === 'DEBUG'),
    levels.join(','),
  );
  assert.ok(!findings.some((f) => f.tag === 'TRANSPORT_NO_DOT'));
});

test('a port 853 that never speaks costs the Transport module no more than the profile timeout', { skip, timeout: 300_000 }, async (t) => {
  const { findings, seconds } = await ours();
  const timeout = Number(findings.find((f) => f.tag === 'DOT_TIMEOUT')?.args.seconds);
  assert.equal(timeout, 5, 'the default profile timeout');
  const span = (id: string): number => {
    const at = (tag: string): number =>
      (findings.find((f) => f.tag === tag && f.args.testcase === id) as unknown as { timestamp: number }).timestamp;
    return at('TEST_CASE_END') - at('TEST_CASE_START');
  };
  t.diagnostic(
    `Transport01 ${span('Transport01').toFixed(2)} s, Transport02 ${span('Transport02').toFixed(2)} s, whole run ${seconds.toFixed(1)} s`,
  );
  assert.ok(span('Transport01') < timeout + 1.5, `Transport01 took ${span('Transport01')} s`);
  assert.ok(span('Transport03') < timeout + 1.5, `Transport03 took ${span('Transport03')} s`);
});

test(
  'dnscheck --json carries a transports table, with null where the port is closed, as the schema says',
  { skip, timeout: 300_000 },
  async () => {
    const { transports, printed } = await ours();
    const validate = ajv.getSchema(`${schema.$id}#/$defs/findings_with_compliance`)!;
    assert.ok(validate(printed), ajv.errorsText(validate.errors, { separator: '\n' }));
    assert.equal(transports.length, 14, 'twelve servers, two of them with two addresses');
    const at = (label: string, address?: string) =>
      transports.find((e) => e.ns === server(label) && (address === undefined || e.address === address))!;
    const ok = at('ns-ok', '203.0.113.250');
    assert.equal(ok.dot?.tls_version, 'TLSv1.3');
    assert.equal(ok.dot?.alpn, 'dot');
    assert.deepEqual(ok.dot?.cert_names, [server('ns-ok')]);
    assert.equal(ok.dot?.cert_valid_for_ns, true);
    assert.ok(Date.parse(ok.dot?.cert_not_after ?? '') > Date.now());
    assert.deepEqual(ok.doh, { get: true, post: true, soa_serial: 2026112902 });
    assert.equal(ok.udp_soa_serial, 2026112902);
    assert.equal(ok.tcp_soa_serial, 2026112902);
    assert.equal(at('ns-plain').dot, null);
    assert.equal(at('ns-plain').doh, null);
    assert.equal(at('ns-silent').dot?.handshake, false);
    assert.equal(at('ns-stale').dot?.soa_serial, 2026112901);
  },
);

for (const [tested, addresses] of [
  [zone, 14],
  ['transport-heldout.test', 6],
] as const)
  test(
    `${tested}: our verdicts equal what kdig, getdns_query and openssl observe, at every address`,
    { skip, timeout: 600_000 },
    async (t) => {
      const lab = shared.lab;
      const zone = tested;
      const servers = lab.servers
        .filter((s) => s.name.endsWith(`.${zone}.`) && lab.servers.some((other) => other.encrypted?.backend === s.name) === false)
        .flatMap((s) => s.addresses.map((address) => ({ ns: s.name.replace(/\.$/, ''), address })));
      const recorded = await transportOracle(lab, zone, servers);
      const { transports, findings } = await ours(zone);
      const differences: string[] = [];
      let pairs = 0;
      const compare = (where: string, what: string, theirs: unknown, mine: unknown): void => {
        pairs++;
        if (theirs !== mine) differences.push(`${where} ${what}: the tools say ${String(theirs)}, we say ${String(mine)}`);
      };
      for (const [key, seen] of Object.entries(recorded.results)) {
        const entry = transports.find((e) => `${e.ns}/${e.address}` === key);
        if (!entry) {
          differences.push(`${key}: not in our table`);
          continue;
        }
        compare(key, 'DoT handshake and answer', seen.dot_handshake, entry.dot?.handshake === true && entry.dot.soa_serial !== null);
        compare(key, 'certificate valid for the name (kdig)', seen.dot_cert_valid_kdig, entry.dot?.cert_valid_for_ns ?? false);
        compare(key, 'certificate valid for the name (getdns)', seen.dot_cert_valid_getdns, entry.dot?.cert_valid_for_ns ?? false);
        compare(key, 'ALPN', seen.dot_alpn, entry.dot?.alpn ?? null);
        compare(key, 'DoT serial', seen.dot_serial, entry.dot?.soa_serial ?? null);
        compare(key, 'DoH GET', seen.doh_get, entry.doh?.get ?? false);
        compare(key, 'DoH POST', seen.doh_post, entry.doh?.post ?? false);
        const dohCertInvalid = findings.some((f) => f.tag === 'DOH_CERT_INVALID' && f.args.ns === key);
        compare(key, 'DoH certificate valid for the name', seen.doh_cert_valid, (entry.doh?.post ?? false) && !dohCertInvalid);
        compare(key, 'DoH serial', seen.doh_serial, entry.doh?.soa_serial ?? null);
        compare(key, 'UDP serial', seen.udp_serial, entry.udp_soa_serial);
      }
      t.diagnostic(`${pairs - differences.length} of ${pairs} (address, observation) pairs agree`);
      assert.equal(Object.keys(recorded.results).length, addresses);
      assert.deepEqual(differences, []);
    },
  );
