// A realistic mix of responses an engine run sees: referrals with glue, answers, DNSSEC material,
// negative answers with NSEC3 proofs. Built with our encoder from zone-file text.
import { encodeMessage, Name, parseZoneFile, RRClass, RRType, type ResourceRecord } from '@app/dns';

const zone = parseZoneFile(`$ORIGIN example.com.
$TTL 3600
@ SOA ns1.example.com. hostmaster.example.com. 2026112101 7200 3600 1209600 300
@ NS ns1.example.com.
@ NS ns2.example.net.
@ NS ns3.example.org.
ns1 A 192.0.2.53
ns1 AAAA 2001:db8::53
www A 192.0.2.80
www A 192.0.2.81
www AAAA 2001:db8::80
@ MX 10 mx1
@ MX 20 mx2
@ TXT "v=spf1 ip4:192.0.2.0/24 include:_spf.example.net -all"
@ TXT "google-site-verification=0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"
@ DNSKEY 257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==
@ DNSKEY 256 3 13 oJMRESz5E4gYzS/q6XDrvU1qMPYIjCWzJaOau8XNEZeqCYKD5ar0IRd8KqXXFJkqmVfRvMGPmM1x8fGAa2XhSA==
@ RRSIG DNSKEY 13 2 3600 20261231000000 20261101000000 2371 example.com. KTmIxYqPzVZvaJT6G8xNe2uF3D6JgyHfa8r9ln8H2zsl0wOZjKSmrEJgKM0tPBGl+EjTs6h8Fo7PV2bfbHrpzQ==
@ RRSIG A 13 2 3600 20261231000000 20261101000000 34505 example.com. 8Ru5g0IShzoVX8y6eiHB/nqc3hn3KNP4fbRXY1XPOHvFvC9hRjeK4mN5fX9xjSvzq/8wU6dTQ/YrpAsFlgBR8A==
abc NSEC3 1 0 0 - 1avvqn74sg75ukfvf25dgcethgq638ek NS SOA MX TXT RRSIG DNSKEY NSEC3PARAM
def NSEC3 1 0 0 - 75b9id679qqooijhvfhf6n6p7em6p2hj A AAAA RRSIG
@ RRSIG NSEC3 13 3 300 20261231000000 20261101000000 34505 example.com. 8Ru5g0IShzoVX8y6eiHB/nqc3hn3KNP4fbRXY1XPOHvFvC9hRjeK4mN5fX9xjSvzq/8wU6dTQ/YrpAsFlgBR8A==
`);

const pick = (type: number, owner?: string) => zone.filter((r) => r.type === type && (!owner || r.name.equals(Name.fromString(owner))));
const q = (name: string, type: number) => [{ name: Name.fromString(name), type, class: RRClass.IN }];
const edns = { udpSize: 1232, do: true };
const sig = (covered: number) =>
  zone.filter(
    (r): r is ResourceRecord =>
      r.type === RRType.RRSIG && 'typeCovered' in (r.rdata as object) && (r.rdata as { typeCovered: number }).typeCovered === covered,
  );

export const responses: Uint8Array[] = [
  // Referral from a parent: NS in authority, glue in additional.
  encodeMessage({
    id: 1,
    qr: true,
    question: q('www.example.com.', RRType.A),
    authority: pick(RRType.NS),
    additional: [...pick(RRType.A, 'ns1.example.com.'), ...pick(RRType.AAAA, 'ns1.example.com.')],
    edns,
  }),
  // Authoritative answers.
  encodeMessage({
    id: 2,
    qr: true,
    aa: true,
    question: q('www.example.com.', RRType.A),
    answer: [...pick(RRType.A, 'www.example.com.'), ...sig(RRType.A)],
    edns,
  }),
  encodeMessage({ id: 3, qr: true, aa: true, question: q('example.com.', RRType.MX), answer: pick(RRType.MX) }),
  encodeMessage({ id: 4, qr: true, aa: true, question: q('example.com.', RRType.TXT), answer: pick(RRType.TXT), edns }),
  encodeMessage({
    id: 5,
    qr: true,
    aa: true,
    question: q('example.com.', RRType.SOA),
    answer: pick(RRType.SOA),
    authority: pick(RRType.NS),
  }),
  encodeMessage({
    id: 6,
    qr: true,
    aa: true,
    question: q('example.com.', RRType.DNSKEY),
    answer: [...pick(RRType.DNSKEY), ...sig(RRType.DNSKEY)],
    edns,
  }),
  // NXDOMAIN with SOA and NSEC3 proofs.
  encodeMessage({
    id: 7,
    qr: true,
    aa: true,
    rcode: 3,
    question: q('nope.example.com.', RRType.A),
    authority: [...pick(RRType.SOA), ...pick(RRType.NSEC3), ...sig(RRType.NSEC3)],
    edns,
  }),
  encodeMessage({
    id: 8,
    qr: true,
    aa: true,
    question: q('example.com.', RRType.NS),
    answer: pick(RRType.NS),
    additional: pick(RRType.A, 'ns1.example.com.'),
  }),
];
