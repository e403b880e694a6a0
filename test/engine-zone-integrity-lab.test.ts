// The ZONE_INTEGRITY module (ZONEMD, zone walking) on the lab's zone-integrity scenarios, seven of twelve
// broken on purpose, against Debian's tools: ldns-verify-zone's verdict on each server's transfer,
// ldns-walk's listing, nsec3hash's hashes (recorded in test/reference-zone-integrity/). 100% must agree.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadScenario } from '@app/lab';
import { useLab } from '@app/lab/testing';
import { dnscheck, ours, type Finding } from './support/lab-engines.ts';
import { oracle, type OracleZone } from './support/zone-integrity-oracle.ts';

const dir = resolve(import.meta.dirname, 'scenarios/zone-integrity');
const files = readdirSync(dir)
  .filter((file) => file.endsWith('.yaml'))
  .sort()
  .map((file) => join(dir, file));
const shared = await useLab(files);
const { skip } = shared;

/** Each scenario's zone as the oracle needs it, read from its file (not from our findings). */
function oracleZone(file: string): OracleZone {
  const world = loadScenario(file);
  const zone = world.domains[0].replace(/\.$/, '');
  const specs = world.zones.filter((z) => z.origin === `${zone}.`);
  const servers = world.servers
    .filter((s) => specs.some((z) => z.servers.includes(s.name)))
    .flatMap((s) => s.addresses.map((address) => ({ ns: s.name.replace(/\.$/, ''), address })));
  const dnssec = specs[0].dnssec;
  const nsec3 = dnssec?.denial === 'nsec3' ? { salt: dnssec.nsec3.salt, iterations: dnssec.nsec3.iterations } : undefined;
  return {
    zone,
    servers,
    hasZonemd: specs.some((z) => z.zonemd.length > 0),
    signed: dnssec?.signed === true,
    ...(nsec3 && { nsec3 }),
    // The apex, and the name the module asks for to see the zone's denial records.
    names: [`${zone}.`, `nx-zone-integrity-probe.${zone}.`],
  };
}

const zones = files.map(oracleZone);
const findingsOf = async (zone: string): Promise<Finding[]> =>
  (await ours(shared.lab, zone, '--profile', 'extended', '--test', 'Zone_Integrity')).filter((f) => f.module === 'ZONE_INTEGRITY');
const tags = async (zone: string): Promise<string[]> => [...new Set((await findingsOf(zone)).map((f) => f.tag))].sort();

// What each scenario was built to show (other tags may come too).
const expected: Record<string, string[]> = {
  'zonemd-ok': ['ZONEMD_SAME_ON_ALL', 'ZONEMD_DIGEST_VERIFIED', 'DENIAL_NONE'],
  'zonemd-signed': ['ZONEMD_SAME_ON_ALL', 'ZONEMD_DIGEST_VERIFIED', 'NSEC3_HASHED_NAMES', 'NSEC3_PARAMETERS_ADVISED'],
  'zonemd-wrong': ['ZONEMD_DIGEST_MISMATCH'],
  'zonemd-split': ['ZONEMD_DIFFERS', 'ZONEMD_DIGEST_VERIFIED', 'ZONEMD_DIGEST_MISMATCH'],
  'zonemd-unknown': ['ZONEMD_UNSUPPORTED', 'ZONEMD_NOT_VERIFIABLE'],
  'zonemd-noxfr': ['ZONEMD_SAME_ON_ALL', 'ZONEMD_NO_TRANSFER'],
  'zonemd-serial': ['ZONEMD_SERIAL_MISMATCH'],
  'walk-nsec': ['ZONEMD_ABSENT', 'NSEC_WALKED'],
  'walk-nsec-knot': ['ZONEMD_ABSENT', 'NSEC_WALKED'],
  'walk-nsec3-weak': ['NSEC3_HASHED_NAMES', 'NSEC3_ITERATIONS_NOT_ZERO', 'NSEC3_SALT_USED'],
  'walk-nsec3-ok': ['NSEC3_HASHED_NAMES', 'NSEC3_PARAMETERS_ADVISED'],
  'walk-nsec3-optout': ['NSEC3_HASHED_NAMES', 'NSEC3_OPT_OUT'],
};
const wrongTags = ['ZONEMD_DIGEST_MISMATCH', 'ZONEMD_SERIAL_MISMATCH', 'ZONEMD_DUPLICATE', 'ZONEMD_DIFFERS', 'NSEC3_ITERATIONS_NOT_ZERO'];

test(
  'each scenario gets the findings it was built for, and the healthy ones none of the failures',
  { skip, timeout: 600_000 },
  async () => {
    for (const { zone } of zones) {
      const got = await tags(zone);
      for (const tag of expected[zone] ?? []) assert.ok(got.includes(tag), `${zone}: ${tag} missing from ${got.join(' ')}`);
      if (['zonemd-ok', 'zonemd-signed', 'walk-nsec', 'walk-nsec-knot', 'walk-nsec3-ok'].includes(zone))
        assert.deepEqual(
          got.filter((t) => wrongTags.includes(t)),
          [],
          zone,
        );
    }
  },
);

test('ZONEMD: our verdict per server equals ldns-verify-zone -Z on that server’s transfer', { skip, timeout: 600_000 }, async (t) => {
  const differences: string[] = [];
  let pairs = 0;
  for (const target of zones.filter((z) => z.hasZonemd)) {
    const recorded = await oracle(shared.lab, target);
    const findings = await findingsOf(target.zone);
    const refused = findings
      .filter((f) => f.tag === 'ZONEMD_NO_TRANSFER' || f.tag === 'ZONEMD_TRANSFER_REFUSED')
      .flatMap((f) => String(f.args.ns_list).split(';'));
    for (const [server, { transferred, verified }] of Object.entries(recorded.transfers)) {
      pairs++;
      const mine = findings.filter((f) => f.args.ns === server && f.tag.startsWith('ZONEMD_'));
      const weTransferred = !refused.includes(server);
      const weVerified = mine.some((f) => f.tag === 'ZONEMD_DIGEST_VERIFIED');
      if (weTransferred !== transferred) differences.push(`${target.zone} ${server}: dig transferred ${transferred}, we ${weTransferred}`);
      else if (transferred && weVerified !== verified)
        differences.push(`${target.zone} ${server}: ldns verified ${verified}, we ${weVerified}`);
    }
  }
  t.diagnostic(`${pairs - differences.length} of ${pairs} servers agree`);
  assert.ok(pairs >= 14);
  assert.deepEqual(differences, []);
});

test(
  'walking: NSEC zones are listed as ldns-walk lists them; NSEC3 zones it cannot walk, and neither do we',
  { skip, timeout: 600_000 },
  async () => {
    for (const target of zones.filter((z) => z.signed)) {
      const recorded = await oracle(shared.lab, target);
      const findings = await findingsOf(target.zone);
      const walked = findings.find((f) => f.tag === 'NSEC_WALKED');
      assert.equal(walked !== undefined, recorded.walk!.enumerated, `${target.zone}: ldns-walk enumerated ${recorded.walk!.enumerated}`);
      if (walked === undefined) continue;
      assert.equal(walked.args.names, recorded.walk!.names.length, target.zone);
      // Knot answers the NSEC query at the signed delegation with a referral: one more question gets that NSEC.
      if (target.zone === 'walk-nsec-knot') assert.equal(walked.args.queries, Number(walked.args.names) + 1);
      assert.deepEqual(
        String(walked.args.sample).split(' '),
        recorded.walk!.names.slice(0, 5).map((n) => n.replace(/\.$/, '')),
        target.zone,
      );
    }
  },
);

test('NSEC3: every hash we show equals nsec3hash’s for that name, salt and iteration count', { skip, timeout: 600_000 }, async () => {
  let compared = 0;
  for (const target of zones.filter((z) => z.nsec3 !== undefined)) {
    const recorded = await oracle(shared.lab, target);
    for (const f of (await findingsOf(target.zone)).filter((f) => f.tag.startsWith('NSEC3_HASH') && f.tag !== 'NSEC3_HASHED_NAMES')) {
      compared++;
      assert.equal(f.args.hash, recorded.nsec3!.hashes[`${String(f.args.name)}.`], `${target.zone} ${String(f.args.name)}`);
      assert.equal(f.args.iterations, recorded.nsec3!.iterations);
      assert.equal(f.args.salt, recorded.nsec3!.salt);
    }
  }
  assert.equal(compared, 2 * zones.filter((z) => z.nsec3 !== undefined).length, 'two names in each NSEC3 zone');
});

const schema = JSON.parse(readFileSync(resolve(import.meta.dirname, '../docs/results.schema.json'), 'utf8')) as { $id: string };
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
ajv.addSchema(schema);

async function dnscheckJson(zone: string, ...extra: string[]): Promise<Record<string, unknown>> {
  const args = [
    dnscheck,
    zone,
    '--hints',
    shared.lab.hintsPath,
    '--profile',
    'extended',
    '--test',
    'Zone_Integrity',
    '--no-progress',
    ...extra,
  ];
  const { stdout } = await shared.lab.exec(process.execPath, args, { timeoutMs: 120_000 });
  return JSON.parse(stdout) as Record<string, unknown>;
}

test('dnscheck --json and --json-run carry the zone integrity summary, valid against the schema', { skip, timeout: 600_000 }, async () => {
  const validate = (kind: string, value: unknown): void => {
    const check = ajv.getSchema(`${schema.$id}#/$defs/${kind}`)!;
    assert.ok(check(value), `${kind}: ${ajv.errorsText(check.errors, { separator: '\n' })}`);
  };
  const split = await dnscheckJson('zonemd-split.test', '--json');
  validate('findings_with_compliance', split);
  assert.deepEqual(split.zone_integrity, {
    zonemd: {
      verdict: 'failed',
      same_on_all_servers: false,
      servers: [
        { ns: 'ns1.zonemd-split.test', address: '2001:db8:5e03::1', result: 'verified' },
        { ns: 'ns2.zonemd-split.test', address: '2001:db8:5e03::2', result: 'mismatch' },
      ],
    },
    walk: { denial: 'none', listable: false, hashes: [] },
  });
  const weak = await dnscheckJson('walk-nsec3-weak.test', '--json-run', '--raw');
  validate('run', weak);
  const walk = (weak.zone_integrity as { walk: Record<string, unknown> }).walk;
  assert.deepEqual(walk.nsec3, { iterations: 10, salt: 'aabbccdd', opt_out: false, as_rfc9276_advises: false });
  assert.equal((walk.hashes as unknown[]).length, 2);
  const nsec = (await dnscheckJson('walk-nsec.test', '--json')).zone_integrity as { walk: Record<string, unknown> };
  assert.deepEqual(nsec.walk, { denial: 'nsec', listable: true, names: 9, complete: true, hashes: [] });
  const noxfr = (await dnscheckJson('zonemd-noxfr.test', '--json')).zone_integrity as { zonemd: Record<string, unknown> };
  assert.equal(noxfr.zonemd.verdict, 'not_transferred');
});
