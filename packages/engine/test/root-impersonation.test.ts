// What the real root never answers (net/root-impersonation.ts), and what it does answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeMessage, encodeMessage, Name, Rcode, RRClass, RRType, type MessageInput, type RecordInput } from '@app/dns';
import { describeAnswer, hintTlds, impossibleFromRoot } from '../src/net/root-impersonation.ts';

const name = (text: string) => Name.fromString(text);
const tlds = hintTlds([name('a.root-servers.net.'), name('b.root-servers.net.'), name('a.root-servers.test.')]);
const soa = {
  mname: name('a.root-servers.net.'),
  rname: name('nstld.verisign-grs.com.'),
  serial: 1,
  refresh: 1800,
  retry: 900,
  expire: 604800,
  minimum: 86400,
};
const rr = (owner: string, type: number, rdata: RecordInput['rdata']): RecordInput => ({
  name: name(owner),
  type,
  class: RRClass.IN,
  ttl: 3600,
  rdata,
});
const reply = (qname: string, qtype: number, fields: Omit<MessageInput, 'question'>) =>
  decodeMessage(encodeMessage({ id: 1, qr: true, question: [{ name: name(qname), type: qtype, class: RRClass.IN }], ...fields }));

test('the hints name the TLDs their servers live in', () => {
  assert.deepEqual([...tlds].sort(), [name('net.').key(), name('test.').key()].sort());
});

test('what the real root answers passes: its own data with AA, referrals down to a TLD, NXDOMAIN for a TLD it lacks', () => {
  const real = [
    reply('.', RRType.SOA, { aa: true, answer: [rr('.', RRType.SOA, soa)] }),
    reply('.', RRType.NS, { aa: true, answer: [rr('.', RRType.NS, { target: name('a.root-servers.net.') })] }),
    reply('www.example.com.', RRType.A, { authority: [rr('com.', RRType.NS, { target: name('a.gtld-servers.net.') })] }),
    reply('nosuchtld.', RRType.SOA, { aa: true, rcode: Rcode.NXDOMAIN, authority: [rr('.', RRType.SOA, soa)] }),
    reply('.', RRType.AAAA, { aa: true, authority: [rr('.', RRType.SOA, soa)] }),
    reply('.', RRType.DNSKEY, { tc: true }),
  ];
  for (const message of real) assert.equal(impossibleFromRoot(message, tlds), false, describeAnswer(message));
});

test('what an intercepting network answers does not: recursion, answers without authority, referrals up, a TLD of the hints denied', () => {
  const fake = [
    // A company resolver: recursion offered, whatever else.
    reply('.', RRType.SOA, { ra: true, authority: [rr('.', RRType.NS, { target: name('a.root-servers.net.') })] }),
    reply('www.example.com.', RRType.A, { ra: true, aa: true, answer: [rr('www.example.com.', RRType.A, { address: '192.0.2.80' })] }),
    // A forwarder answering from its cache, without RA.
    reply('www.example.com.', RRType.A, { answer: [rr('www.example.com.', RRType.A, { address: '192.0.2.80' })] }),
    // An upward referral: to the root, from "the root".
    reply('example.com.', RRType.SOA, { authority: [rr('.', RRType.NS, { target: name('a.root-servers.net.') })] }),
    // A captive portal: NXDOMAIN for everything, with or without AA.
    reply('net.', RRType.NS, { aa: true, rcode: Rcode.NXDOMAIN }),
    reply('example.test.', RRType.SOA, { aa: true, rcode: Rcode.NXDOMAIN }),
    reply('nosuchtld.', RRType.SOA, { rcode: Rcode.NXDOMAIN }),
    // No such data, without authority.
    reply('.', RRType.AAAA, {}),
  ];
  for (const message of fake) assert.equal(impossibleFromRoot(message, tlds), true, describeAnswer(message));
});

test("an answer is described in dig's terms", () => {
  assert.equal(
    describeAnswer(reply('net.', RRType.NS, { rcode: Rcode.NXDOMAIN, rd: true, ra: true })),
    'net NS → NXDOMAIN, flags qr rd ra, ANSWER: 0',
  );
  assert.equal(
    describeAnswer(reply('.', RRType.SOA, { aa: true, answer: [rr('.', RRType.SOA, soa)] })),
    '. SOA → NOERROR, flags qr aa, ANSWER: 1',
  );
});
