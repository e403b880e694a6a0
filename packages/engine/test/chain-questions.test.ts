// What the chain still needs from a run's log (needed-questions.ts), on a run saved in the lab
// (fixtures/wrongds-run.json): the parents' keys and DS, never a question the log holds, no silent
// address while another of the zone's answered, only the IP families the run may use.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { neededQuestions } from '../src/chain/needed-questions.ts';
import type { Exchange } from '../src/net/network.ts';

const saved = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/wrongds-run.json'), 'utf8')) as {
  domain: string;
  exchanges: Exchange[];
};
const both = { ipv4: true, ipv6: true };
const listed = (exchanges: readonly Exchange[], families = both): string[] =>
  neededQuestions(saved.domain, exchanges, families).map((q) => `${q.server}/${q.address} ${q.qname} ${q.qtype}`);

test("the run asked nothing of the root's and test.'s keys nor of test.'s DS: those, from the servers the log shows", () => {
  assert.deepEqual(listed(saved.exchanges), [
    'b.root-servers.test/2001:db8:100::2 . 48',
    'ns1.nic.test/198.51.100.11 test. 48',
    'ns2.nic.test/198.51.100.12 test. 48',
    'ns1.nic.test/2001:db8:100::11 test. 48',
    'ns2.nic.test/2001:db8:100::12 test. 48',
    'b.root-servers.test/2001:db8:100::2 test. 43',
  ]);
});

test('only the IP families the run may use', () => {
  assert.deepEqual(listed(saved.exchanges, { ipv4: true, ipv6: false }), [
    'ns1.nic.test/198.51.100.11 test. 48',
    'ns2.nic.test/198.51.100.12 test. 48',
  ]);
});

test('a question the log holds is not asked again, answered or not', () => {
  const asked: Exchange[] = neededQuestions(saved.domain, saved.exchanges, both).map((q, i) => ({
    server: `${q.server}/${q.address}`,
    qname: q.qname,
    qtype: q.qtype,
    qclass: 1,
    transport: 'udp',
    flags: { dnssec: true },
    at: 10_000 + i,
    ms: 1,
  }));
  assert.deepEqual(listed([...saved.exchanges, ...asked]), []);
});

test('an address the run found silent is not asked', () => {
  const silent = saved.exchanges.map((e) => (e.server.endsWith('/198.51.100.11') ? { ...e, reply: undefined } : e));
  assert.ok(!listed(silent).some((q) => q.includes('198.51.100.11')));
  assert.ok(listed(silent).includes('ns2.nic.test/198.51.100.12 test. 48'));
});

test("when none of a zone's servers ever answered, they are asked all the same (a server may drop only some questions)", () => {
  const nic = ['198.51.100.11', '198.51.100.12', '2001:db8:100::11', '2001:db8:100::12'];
  const silent = saved.exchanges.map((e) => (nic.some((a) => e.server.endsWith(`/${a}`)) ? { ...e, reply: undefined } : e));
  assert.deepEqual(
    listed(silent).filter((q) => q.endsWith(' test. 48')),
    [
      'ns1.nic.test/198.51.100.11 test. 48',
      'ns2.nic.test/198.51.100.12 test. 48',
      'ns1.nic.test/2001:db8:100::11 test. 48',
      'ns2.nic.test/2001:db8:100::12 test. 48',
    ],
  );
});

test('an address never asked is asked only in an IP family some server answered in (no timeouts per IPv6 address on a host without IPv6)', () => {
  // Only the run's IPv6 exchanges: the IPv4 glue of test.'s servers is known, never asked, and no IPv4 server answered.
  const v6Only = saved.exchanges.filter((e) => e.server.split('/').at(-1)!.includes(':'));
  assert.deepEqual(
    listed(v6Only).filter((q) => q.endsWith(' test. 48')),
    ['ns1.nic.test/2001:db8:100::11 test. 48', 'ns2.nic.test/2001:db8:100::12 test. 48'],
  );
  // With one IPv4 server answering anything, the family is in use and the glue is asked.
  const oneV4 = [...v6Only, saved.exchanges.find((e) => e.server.endsWith('/192.0.2.70') && e.reply)!];
  assert.deepEqual(
    listed(oneV4).filter((q) => q.endsWith(' test. 48')),
    [
      'ns1.nic.test/198.51.100.11 test. 48',
      'ns2.nic.test/198.51.100.12 test. 48',
      'ns1.nic.test/2001:db8:100::11 test. 48',
      'ns2.nic.test/2001:db8:100::12 test. 48',
    ],
  );
});
