// The generated big:N world: big.test. delegates to N children over the lab's servers, broken ones
// answer as their catalogue counterparts do, and the few signed children are bogus.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RRType, type QueryOptions, type QueryResult } from '@app/dns';
import { bigChildren, bigWorldDomains, bigWorldSize, loadScenario } from '../src/index.ts';
import { useLab } from '../src/testing.ts';

const n = 300;
const shared = await useLab([`big:${n}`]);
const { skip } = shared;
const quick = { timeoutMs: 2000, retries: 1 };

const ask = (server: string, name: string, type: number, options: Omit<QueryOptions, 'signal'> = quick): Promise<QueryResult> =>
  shared.lab.query(server, { name, type }, options);

test('big:N is a world of N children plus the signed few; other names are not generated', () => {
  assert.equal(bigWorldSize('big'), 10_000);
  assert.equal(bigWorldSize('big:1000'), 1000);
  assert.equal(bigWorldSize('bigger'), undefined);
  assert.throws(() => bigWorldSize('big:0'), /1 to/);
  const scenario = loadScenario(`big:${n}`);
  assert.deepEqual(scenario.domains, ['big.test.']);
  assert.equal(scenario.bulkZones?.length, n);
  const kinds = Object.groupBy(bigWorldDomains(n), (c) => c.kind);
  assert.equal(kinds.healthy?.length, n - 12);
  assert.deepEqual([kinds.lame?.length, kinds.silent?.length, kinds['ds-unsigned']?.length, kinds['bogus-signed']?.length], [6, 3, 3, 3]);
});

test('the parent refers to every child, and a healthy child answers from both its servers', { skip }, async () => {
  const children = bigChildren(n);
  for (const child of [children[0], children[1], children.at(-1)!]) {
    const referral = await ask('ns1.big.test', child.name, RRType.SOA);
    assert.equal(referral.outcome, 'response');
    if (referral.outcome !== 'response') continue;
    assert.deepEqual(
      referral.message.authority
        .filter((rr) => rr.type === RRType.NS)
        .map((rr) => String((rr.rdata as { target: unknown }).target).toLowerCase())
        .sort(),
      [...child.ns].sort(),
    );
    for (const server of child.ns) {
      const reply = await ask(server, child.name, RRType.SOA);
      assert.ok(reply.outcome === 'response' && reply.message.aa && reply.message.answer.length === 1, `${server} answers ${child.name}`);
    }
  }
});

test(
  'a lame child is refused by its second server; a silent one gets no NS answer; a DS-unsigned one has a DS and no DNSKEY',
  { skip },
  async () => {
    const children = bigChildren(n);
    const lame = children.find((c) => c.kind === 'lame')!;
    const refused = await ask(lame.ns[1], lame.name, RRType.SOA);
    assert.ok(refused.outcome === 'response' && refused.message.rcode === 5, 'REFUSED');
    const silent = children.find((c) => c.kind === 'silent')!;
    assert.equal((await ask(silent.ns[0], silent.name, RRType.NS, { timeoutMs: 500, retries: 0 })).outcome, 'timeout');
    const orphan = children.find((c) => c.kind === 'ds-unsigned')!;
    const ds = await ask('ns1.big.test', orphan.name, RRType.DS);
    assert.ok(ds.outcome === 'response' && ds.message.answer.some((rr) => rr.type === RRType.DS), 'the parent has a DS');
    const keys = await ask(orphan.ns[0], orphan.name, RRType.DNSKEY);
    assert.ok(keys.outcome === 'response' && keys.message.answer.length === 0, 'the child has no DNSKEY');
  },
);

test('a signed bogus child has a DS at the parent and its DNSKEY RRset signed', { skip }, async () => {
  const bogus = bigWorldDomains(n).find((c) => c.kind === 'bogus-signed')!;
  const ds = await ask('ns1.big.test', bogus.name, RRType.DS);
  assert.ok(ds.outcome === 'response' && ds.message.answer.some((rr) => rr.type === RRType.DS));
  const keys = await ask(bogus.ns[0], bogus.name, RRType.DNSKEY, { ...quick, edns: { udpSize: 1232, do: true } });
  assert.ok(keys.outcome === 'response' && keys.message.answer.some((rr) => rr.type === RRType.RRSIG), 'DNSKEY comes with an RRSIG');
});
