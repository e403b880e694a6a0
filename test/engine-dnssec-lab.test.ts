// The engine's DNSSEC module against zones signed by BIND's own tools in the lab, and against the
// reference engine (Debian's zonemaster-cli) on the same lab: every DNSSEC finding at INFO and above
// must agree, arguments included. Lives outside packages/ because it joins the lab and the engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { catalogueNames, labUnavailableReason, scenarioDomain, startLab, type Lab } from '@app/lab';
import { ours as oursRun, reference as referenceRun, type Finding } from './support/lab-engines.ts';

// Each engine runs once per domain; the tests share the runs (ours() keeps its own).
const referenceRuns = new Map<string, Promise<Finding[]>>();
const ours = (lab: Lab, domain: string): Promise<Finding[]> => oursRun(lab, domain, '--test', 'DNSSEC');
function reference(lab: Lab, domain: string): Promise<Finding[]> {
  if (!referenceRuns.has(domain)) referenceRuns.set(domain, referenceRun(lab, domain, ['dnssec']));
  return referenceRuns.get(domain)!;
}

const levelsFromInfo = ['INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL'];
// Seconds left until expiration depend on the second each engine asked in; they are compared by tag alone.
const clockDependent = new Set(['REMAINING_SHORT', 'REMAINING_LONG']);
/** DNSSEC findings at INFO or above (and the module's NOT_SIGNED), as strings: test case, tag, level, arguments. */
function dnssecKeys(findings: Finding[]): string[] {
  const keys = findings
    .filter((f) => (f.module === 'DNSSEC' || f.tag === 'NOT_SIGNED') && levelsFromInfo.includes(f.level))
    .map((f) => {
      const args = Object.entries(f.args).filter(([k]) => !(clockDependent.has(f.tag) && k === 'duration'));
      return `${f.testcase.toUpperCase()} ${f.tag} ${f.level} ${JSON.stringify(Object.fromEntries(args.map(([k, v]) => [k, String(v)]).sort()))}`;
    });
  return [...new Set(keys)].sort();
}

const find = (findings: Finding[], tag: string): Finding | undefined => findings.find((f) => f.tag === tag);

const skipReason = await labUnavailableReason();
const scenarios = catalogueNames().filter((name) => name.startsWith('dnssec-') || ['healthy-signed', 'wrong-ds', 'expired-signatures'].includes(name));

describe('DNSSEC in the lab', { skip: skipReason ?? false }, () => {
  let lab: Lab;
  before(async () => {
    lab = await startLab(scenarios);
  });
  after(async () => {
    await lab?.stop();
  });

  test('an unsigned zone is NOT_SIGNED, outside any test case, and nothing else of the module runs', async () => {
    const findings = await ours(lab, 'dnssec-unsigned.test');
    const signed = find(findings, 'NOT_SIGNED');
    assert.deepEqual([signed?.testcase, signed?.level, signed?.args.zone], ['UNSPECIFIED', 'NOTICE', 'dnssec-unsigned.test']);
    assert.ok(find(findings, 'NEITHER_DNSKEY_NOR_DS'));
    assert.deepEqual([...new Set(findings.filter((f) => f.tag === 'TEST_CASE_START').map((f) => f.testcase))], ['DNSSEC07']);
  });

  test('a healthy zone per algorithm: ALGORITHM_OK for 8, 13, 14, 15, 16; NOT_RECOMMENDED for 5 and 7; no error', async () => {
    const expected: [string, number, string][] = [
      ['dnssec-alg8.test', 8, 'ALGORITHM_OK'], ['healthy.test', 13, 'ALGORITHM_OK'], ['dnssec-alg14.test', 14, 'ALGORITHM_OK'], ['dnssec-alg15.test', 15, 'ALGORITHM_OK'],
      ['dnssec-alg16.test', 16, 'ALGORITHM_OK'], ['dnssec-alg5.test', 5, 'ALGORITHM_NOT_RECOMMENDED'], ['dnssec-alg7.test', 7, 'ALGORITHM_NOT_RECOMMENDED'],
    ];
    for (const [domain, algo, tag] of expected) {
      const findings = await ours(lab, domain);
      assert.ok(findings.some((f) => f.tag === tag && f.args.algo_num === algo), `${domain}: ${tag} for ${algo}`);
      assert.deepEqual(findings.filter((f) => f.level === 'ERROR' || f.level === 'CRITICAL').map((f) => f.tag), [], domain);
      assert.ok(find(findings, 'DNSKEY_AND_DS'), domain);
    }
  });

  test('broken chains: DS to no key, SHA-1 only, DS to an unsigned zone, DNSKEY set signed by the ZSK only', async () => {
    const keytag = await ours(lab, 'dnssec-ds-keytag.test');
    assert.ok(find(keytag, 'DS02_NO_DNSKEY_FOR_DS') && find(keytag, 'DS02_NO_VALID_DNSKEY_FOR_ANY_DS'));
    const sha1 = find(await ours(lab, 'dnssec-ds-sha1.test'), 'DS01_DS_ALGO_DEPRECATED');
    assert.deepEqual([sha1?.args.ds_algo_num, sha1?.args.ds_algo_mnemo, sha1?.args.domain], [1, 'SHA-1', 'dnssec-ds-sha1.test']);
    const unsigned = await ours(lab, 'dnssec-ds-unsigned.test');
    assert.ok(find(unsigned, 'DS_BUT_NOT_DNSKEY') && find(unsigned, 'DS11_DS_BUT_UNSIGNED_ZONE'));
    const zskOnly = find(await ours(lab, 'dnssec-zsk-only.test'), 'DS02_DNSKEY_NOT_SIGNED_BY_ANY_DS');
    assert.equal(zskOnly?.args.ns_ip_list, '198.51.100.140;198.51.100.141;2001:db8:1800::b:1');
  });

  test('signatures out of their window, broken denial, many NSEC3 iterations, a small RSA key', async () => {
    assert.ok(find(await ours(lab, 'dnssec-not-yet-valid.test'), 'DS09_SOA_RRSIG_NOT_YET_VALID'));
    assert.ok(find(await ours(lab, 'expired.test'), 'RRSIG_EXPIRED'));
    assert.ok(find(await ours(lab, 'dnssec-nsec-gap.test'), 'DS10_NAME_NOT_COVERED_BY_NSEC'));
    assert.ok(find(await ours(lab, 'dnssec-nsec3-gap.test'), 'DS10_NAME_NOT_COVERED_BY_NSEC3'));
    assert.equal(find(await ours(lab, 'dnssec-nsec3-iterations.test'), 'MANY_ITERATIONS')?.args.count, 150);
    const small = find(await ours(lab, 'dnssec-rsa1024.test'), 'DNSKEY_SMALLER_THAN_REC');
    assert.deepEqual([small?.args.keysize, small?.args.keysizerec], [1024, 2048]);
  });

  test('CDS/CDNSKEY: present and consistent, mismatched, and the algorithm-0 delete request', async () => {
    const correct = await ours(lab, 'dnssec-cds.test');
    assert.ok(find(correct, 'DS15_HAS_CDS_AND_CDNSKEY') && !correct.some((f) => /^DS1[5-8]_/.test(f.tag) && f.level !== 'INFO' && f.level !== 'DEBUG'));
    const mismatch = await ours(lab, 'dnssec-cds-mismatch.test');
    assert.ok(find(mismatch, 'DS15_MISMATCH_CDS_CDNSKEY') && find(mismatch, 'DS17_CDNSKEY_MATCHES_NO_DNSKEY'));
    const deletion = await ours(lab, 'dnssec-cds-delete.test');
    assert.ok(find(deletion, 'DS16_DELETE_CDS') && find(deletion, 'DS17_DELETE_CDNSKEY'));
  });

  test('no DS at the parent, and signature windows: 400 days long, or 6 hours left', async () => {
    assert.ok(find(await ours(lab, 'dnssec-no-ds.test'), 'DNSKEY_BUT_NOT_DS'));
    const long = await ours(lab, 'dnssec-long-validity.test');
    assert.ok(find(long, 'REMAINING_LONG') && (find(long, 'DURATION_LONG')?.args.duration as number) > 399 * 86400);
    const short = find(await ours(lab, 'dnssec-expiring.test'), 'REMAINING_SHORT');
    assert.ok((short?.args.duration as number) > 0 && (short?.args.duration as number) <= 6 * 3600);
  });

  test('DS to a key that is no SEP or no zone key; odd DS digest types; two algorithms, one signing nothing', async () => {
    assert.ok(find(await ours(lab, 'dnssec-ds-zsk.test'), 'DS02_DNSKEY_NOT_SEP'));
    assert.ok(find(await ours(lab, 'dnssec-csk-no-sep.test'), 'DS02_DNSKEY_NOT_SEP'));
    assert.ok(find(await ours(lab, 'dnssec-ds-non-zone-key.test'), 'DS02_DNSKEY_NOT_FOR_ZONE_SIGNING'));
    const digests = await ours(lab, 'dnssec-ds-digests.test');
    assert.deepEqual(['DS01_DS_ALGO_NOT_DS', 'DS01_DS_ALGO_DEPRECATED', 'DS01_DS_ALGO_RESERVED'].map((tag) => find(digests, tag)?.args.ds_algo_num), [0, 3, 5]);
    assert.deepEqual(digests.filter((f) => f.tag === 'DS01_DIGEST_NOT_SUPPORTED_BY_ZM').map((f) => f.args.ds_algo_num).sort(), [0, 3, 5]);
    const twoAlgorithms = await ours(lab, 'dnssec-algo-not-signing.test');
    assert.deepEqual(['DS13_ALGO_NOT_SIGNED_DNSKEY', 'DS13_ALGO_NOT_SIGNED_SOA', 'DS13_ALGO_NOT_SIGNED_NS'].map((tag) => find(twoAlgorithms, tag)?.args.algo_num), [15, 15, 15]);
  });

  test('DNSKEYs of private, deprecated, reserved, unassigned and non-zone-signing algorithms; RSA keys too small and too large', async () => {
    assert.equal(find(await ours(lab, 'dnssec-algo-private.test'), 'ALGORITHM_PRIVATE')?.args.algo_num, 253);
    assert.equal(find(await ours(lab, 'dnssec-algo-deprecated.test'), 'ALGORITHM_DEPRECATED')?.args.algo_num, 3);
    const reserved = await ours(lab, 'dnssec-algo-reserved.test');
    assert.deepEqual(['ALGORITHM_RESERVED', 'ALGORITHM_UNASSIGNED', 'ALGORITHM_NOT_ZONE_SIGN'].map((tag) => find(reserved, tag)?.args.algo_num), [4, 100, 252]);
    const sizes = await ours(lab, 'dnssec-rsa-key-sizes.test');
    assert.deepEqual([find(sizes, 'DNSKEY_TOO_SMALL_FOR_ALGO')?.args.keysize, find(sizes, 'DNSKEY_TOO_LARGE_FOR_ALGO')?.args.keysize], [256, 4104]);
  });

  test('signatures missing, bogus or by a key no longer published; servers that disagree on signing, denial, CDS or the DS', async () => {
    const apex = await ours(lab, 'dnssec-unsigned-apex.test');
    assert.ok(find(apex, 'DS08_MISSING_RRSIG_IN_RESPONSE') && find(apex, 'DS09_MISSING_RRSIG_IN_RESPONSE') && find(apex, 'EXTRA_PROCESSING_BROKEN'));
    const bogus = await ours(lab, 'dnssec-bogus-signatures.test');
    for (const tag of ['DS08_RRSIG_NOT_VALID_BY_DNSKEY', 'DS09_RRSIG_NOT_VALID_BY_DNSKEY', 'DS10_NSEC3_RRSIG_VERIFY_ERROR', 'DS16_CDS_INVALID_RRSIG', 'DS17_CDNSKEY_INVALID_RRSIG']) assert.ok(find(bogus, tag), tag);
    const stale = await ours(lab, 'dnssec-stale-signatures.test');
    for (const tag of ['DS08_NO_MATCHING_DNSKEY', 'DS09_NO_MATCHING_DNSKEY', 'DS16_CDS_SIGNED_BY_UNKNOWN_DNSKEY', 'DS17_CDNSKEY_SIGNED_BY_UNKNOWN_DNSKEY']) assert.ok(find(stale, tag), tag);
    const partly = await ours(lab, 'dnssec-partly-signed.test');
    assert.deepEqual([find(partly, 'DS11_INCONSISTENT_SIGNED_ZONE')?.level, find(partly, 'DS11_NS_WITH_UNSIGNED_ZONE')?.args.ns_ip_list], ['ERROR', '203.0.113.153']);
    const denial = find(await ours(lab, 'dnssec-nsec-nsec3.test'), 'DS10_INCONSISTENT_NSEC_NSEC3');
    assert.deepEqual([denial?.args.ns_ip_list_nsec, denial?.args.ns_ip_list_nsec3], ['2001:db8:1800::26:1;203.0.113.154', '203.0.113.155']);
    const cds = await ours(lab, 'dnssec-cds-inconsistent.test');
    assert.ok(find(cds, 'DS15_INCONSISTENT_CDS') && find(cds, 'DS15_INCONSISTENT_CDNSKEY'));
    assert.ok(find(await ours(lab, 'dnssec-dnskey-servfail.test'), 'DS11_UNDETERMINED_SIGNED_ZONE'));
    const split = await ours(lab, 'child.dnssec-ds-split.test');
    assert.deepEqual(['DS11_INCONSISTENT_DS', 'DS11_PARENT_WITH_DS', 'DS11_PARENT_WITHOUT_DS'].map((tag) => find(split, tag)?.level), ['WARNING', 'NOTICE', 'NOTICE']);
    assert.deepEqual([find(split, 'DS11_PARENT_WITH_DS')?.args.ns_ip_list, find(split, 'DS11_PARENT_WITHOUT_DS')?.args.ns_ip_list], ['203.0.113.184', '203.0.113.185']);
  });

  test('denial faults: unsigned NSEC or NSEC3, no denial at all, SERVFAIL, an unsigned or bogus wildcard answer', async () => {
    assert.ok(find(await ours(lab, 'dnssec-nsec-unsigned.test'), 'DS10_NSEC_MISSING_SIGNATURE'));
    assert.ok(find(await ours(lab, 'dnssec-nsec3-unsigned.test'), 'DS10_NSEC3_MISSING_SIGNATURE'));
    assert.ok(find(await ours(lab, 'dnssec-denial-stripped.test'), 'DS10_MISSING_NSEC_NSEC3'));
    assert.ok(find(await ours(lab, 'dnssec-nsec-servfail.test'), 'DS10_NON_EXISTENT_RESPONSE_ERROR'));
    const unsigned = find(await ours(lab, 'dnssec-wildcard-unsigned.test'), 'DS10_UNSIGNED_ANSWER');
    assert.deepEqual([unsigned?.args.domain, unsigned?.args.rrtype], ['xx--oplk4f3fgh9lksdfhu7h--xx.dnssec-wildcard-unsigned.test.', 'A']);
    assert.ok(find(await ours(lab, 'dnssec-wildcard-bogus.test'), 'DS10_ANSWER_VERIFY_ERROR'));
  });

  test('CDS/CDNSKEY: one without the other, for the ZSK, for an unpublished key, unsigned, signed by the ZSK only, beside no DNSKEY', async () => {
    assert.ok(find(await ours(lab, 'dnssec-cds-only.test'), 'DS15_HAS_CDS_NO_CDNSKEY'));
    assert.ok(find(await ours(lab, 'dnssec-cdnskey-only.test'), 'DS15_HAS_CDNSKEY_NO_CDS'));
    const zsk = await ours(lab, 'dnssec-cds-zsk.test');
    for (const tag of ['DS16_CDS_MATCHES_NON_SEP_DNSKEY', 'DS16_DNSKEY_NOT_SIGNED_BY_CDS', 'DS17_CDNSKEY_IS_NON_SEP', 'DS17_DNSKEY_NOT_SIGNED_BY_CDNSKEY']) assert.ok(find(zsk, tag), tag);
    const unpublished = await ours(lab, 'dnssec-cds-unpublished.test');
    assert.ok(find(unpublished, 'DS16_CDS_MATCHES_NO_DNSKEY') && find(unpublished, 'DS17_CDNSKEY_MATCHES_NO_DNSKEY'));
    const unsigned = await ours(lab, 'dnssec-cds-unsigned.test');
    for (const tag of ['DS16_CDS_UNSIGNED', 'DS17_CDNSKEY_UNSIGNED', 'DS18_NO_MATCH_CDS_RRSIG_DS', 'DS18_NO_MATCH_CDNSKEY_RRSIG_DS']) assert.ok(find(unsigned, tag), tag);
    const zskSigned = await ours(lab, 'dnssec-cds-zsk-signed.test');
    for (const tag of ['DS16_CDS_NOT_SIGNED_BY_CDS', 'DS17_CDNSKEY_NOT_SIGNED_BY_CDNSKEY', 'DS18_NO_MATCH_CDS_RRSIG_DS']) assert.ok(find(zskSigned, tag), tag);
    const noKeys = await ours(lab, 'dnssec-dnskey-empty.test');
    for (const tag of ['DS16_CDS_WITHOUT_DNSKEY', 'DS17_CDNSKEY_WITHOUT_DNSKEY', 'NO_DNSKEY']) assert.ok(find(noKeys, tag), tag);
  });

  test('DS and DNSKEY go on over TCP when UDP answers are truncated, as the reference does', async () => {
    const findings = await ours(lab, 'dnssec-truncated.test');
    assert.equal(find(findings, 'DS10_HAS_NSEC')?.args.ns_ip_list, '198.51.100.158;198.51.100.159;2001:db8:1800::14:1');
    assert.deepEqual(findings.filter((f) => f.tag === 'EXTRA_PROCESSING_OK').map((f) => f.args.server).sort(), ['198.51.100.158', '198.51.100.159', '2001:db8:1800::14:1']);
  });

  test('every DNSSEC finding at INFO and above agrees with zonemaster-cli, arguments included', async () => {
    const domains = scenarios.map((s) => scenarioDomain(s));
    const disagreements: string[] = [];
    // Two domains at a time: the reference is slow to start, and the machine is shared.
    for (let i = 0; i < domains.length; i += 2) {
      await Promise.all(
        domains.slice(i, i + 2).map(async (domain) => {
          const [theirs, mine] = await Promise.all([reference(lab, domain), ours(lab, domain)]);
          const [a, b] = [dnssecKeys(theirs), dnssecKeys(mine)];
          for (const key of a.filter((k) => !b.includes(k))) disagreements.push(`${domain} missing: ${key}`);
          for (const key of b.filter((k) => !a.includes(k))) disagreements.push(`${domain} extra: ${key}`);
        }),
      );
    }
    assert.deepEqual(disagreements, []);
  });
});
