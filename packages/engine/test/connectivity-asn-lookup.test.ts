// The AS lookup of Connectivity03 and 04 per the profile's asn_db, as the reference 9.0 does it:
// Cymru-style TXT records found with the recursor (longest prefix wins; a source that cannot say hands
// over to the next), and RIPE-style whois on TCP port 43, going on to the next source when one cannot
// be reached or says nothing. The whois servers are real sockets on loopback addresses.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { decodeMessage, encodeMessage, Name, Rcode, RRClass, RRType, type Message, type RecordInput } from '@app/dns';
import { lookUpAsn, type TxtLookup } from '../src/checks/connectivity-asn-lookup.ts';

/** What the recursor finds for a query name: TXT strings, a bare rcode, or an NXDOMAIN from a zone. */
type Found = string[] | { rcode: number } | { nxdomainFrom: string };

/** A TXT lookup that answers from `data` and records every query name it is asked. */
function cymruSources(data: Record<string, Found>) {
  const asked: string[] = [];
  const lookUpTxt: TxtLookup = (qname) => {
    asked.push(qname.toString());
    const found = data[qname.toString()];
    if (!found) return Promise.resolve(undefined);
    const question = [{ name: qname, type: RRType.TXT, class: RRClass.IN }];
    let rcode: number = Rcode.NOERROR;
    let answer: RecordInput[] = [];
    let authority: RecordInput[] = [];
    if (Array.isArray(found)) {
      answer = found.map((text) => ({
        name: qname,
        type: RRType.TXT,
        class: RRClass.IN,
        ttl: 60,
        rdata: { strings: [Buffer.from(text)] },
      }));
    } else if ('rcode' in found) {
      rcode = found.rcode;
    } else {
      rcode = Rcode.NXDOMAIN;
      const zone = Name.fromString(found.nxdomainFrom);
      const soa = { mname: zone, rname: zone, serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 1 };
      authority = [{ name: zone, type: RRType.SOA, class: RRClass.IN, ttl: 60, rdata: soa }];
    }
    return Promise.resolve(decodeMessage(encodeMessage({ id: 1, qr: true, aa: true, rcode, question, answer, authority })));
  };
  return { lookUpTxt, asked };
}

const noWhois = (): Promise<string[]> => Promise.reject(new Error('a Cymru lookup must not look for a whois host'));
const cymru = (...sources: string[]) => ({ style: 'Cymru', sources: { Cymru: sources, RIPE: ['whois.unused.test'] } });
const v4one = '1.2.0.192.origin.asn.one.test.';
const v4two = '1.2.0.192.origin.asn.two.test.';

describe('Cymru style', () => {
  test('the TXT record at origin.<reversed address>.<source> gives the ASNs, prefix and raw text', async () => {
    const { lookUpTxt, asked } = cymruSources({ [v4one]: ['64496 | 192.0.2.0/24 | ZZ | lab | 2024-01-01'] });
    const found = await lookUpAsn('192.0.2.1', cymru('asn.one.test', 'asn.two.test'), lookUpTxt, noWhois);
    assert.deepEqual(found, {
      status: 'found',
      asns: [64496],
      prefix: '192.0.2.0/24',
      raw: '64496 | 192.0.2.0/24 | ZZ | lab | 2024-01-01',
    });
    assert.deepEqual(asked, [v4one]);
  });

  test('of several records the longest prefix wins; a record may name several ASNs', async () => {
    const { lookUpTxt } = cymruSources({
      '7.100.51.198.origin.asn.one.test.': [
        '64500 | 198.51.0.0/16 | ZZ',
        '64510 64511 | 198.51.100.0/24 | ZZ',
        '64520 | 198.51.100.0/23 | ZZ',
      ],
    });
    const found = await lookUpAsn('198.51.100.7', cymru('asn.one.test'), lookUpTxt, noWhois);
    assert.deepEqual(found, {
      status: 'found',
      asns: [64510, 64511],
      prefix: '198.51.100.0/24',
      raw: '64510 64511 | 198.51.100.0/24 | ZZ',
    });
  });

  test('an IPv6 address is asked at origin6.<reversed nibbles>.<source>', async () => {
    const qname = `1.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.origin6.asn.one.test.`;
    const { lookUpTxt, asked } = cymruSources({ [qname]: ['64499 | 2001:db8::/32 | ZZ'] });
    const found = await lookUpAsn('2001:db8::1', cymru('asn.one.test'), lookUpTxt, noWhois);
    assert.deepEqual(found, { status: 'found', asns: [64499], prefix: '2001:db8::/32', raw: '64499 | 2001:db8::/32 | ZZ' });
    assert.deepEqual(asked, [qname]);
  });

  test('the only source without an answer is a database error', async () => {
    const { lookUpTxt } = cymruSources({});
    assert.deepEqual(await lookUpAsn('192.0.2.1', cymru('asn.one.test'), lookUpTxt, noWhois), { status: 'error' });
  });

  test('a source that cannot say hands over to the next: no response, SERVFAIL, or an NXDOMAIN from another zone', async () => {
    for (const first of [undefined, { rcode: Rcode.SERVFAIL }, { nxdomainFrom: 'test.' }]) {
      const { lookUpTxt, asked } = cymruSources({ ...(first && { [v4one]: first }), [v4two]: ['64496 | 192.0.2.0/24 | ZZ'] });
      assert.equal((await lookUpAsn('192.0.2.1', cymru('asn.one.test', 'asn.two.test'), lookUpTxt, noWhois)).status, 'found');
      assert.deepEqual(asked, [v4one, v4two]);
    }
  });

  test('the source zone saying the name does not exist, or has no data, is an empty set', async () => {
    for (const answer of [{ nxdomainFrom: 'asn.one.test.' }, { rcode: Rcode.NOERROR }, ['no separators here']]) {
      const { lookUpTxt, asked } = cymruSources({ [v4one]: answer });
      assert.deepEqual(await lookUpAsn('192.0.2.1', cymru('asn.one.test', 'asn.two.test'), lookUpTxt, noWhois), { status: 'empty' });
      assert.deepEqual(asked, [v4one]);
    }
  });

  test('a record whose prefix does not hold the address is a database error', async () => {
    const { lookUpTxt } = cymruSources({ [v4one]: ['64496 | 192.0.2.0/24 | ZZ', '64497 | 198.51.100.0/24 | ZZ'] });
    assert.deepEqual(await lookUpAsn('192.0.2.1', cymru('asn.one.test'), lookUpTxt, noWhois), { status: 'error' });
  });

  test('the style is matched without regard to case; a style without sources is a database error', async () => {
    const { lookUpTxt } = cymruSources({ [v4one]: ['64496 | 192.0.2.0/24 | ZZ'] });
    assert.equal(
      (await lookUpAsn('192.0.2.1', { style: 'cymru', sources: { Cymru: ['asn.one.test'] } }, lookUpTxt, noWhois)).status,
      'found',
    );
    assert.deepEqual(await lookUpAsn('192.0.2.1', { style: 'Cymru', sources: { RIPE: ['whois.test'] } }, lookUpTxt, noWhois), {
      status: 'error',
    });
  });
});

// Loopback addresses of their own, so the whois servers can have port 43 to themselves.
const hosts = { answers: '127.43.0.1', comments: '127.43.0.2', mute: '127.43.0.3', refused: '127.43.0.9' };

describe('RIPE style (whois on port 43)', () => {
  const requests: { host: string; text: string }[] = [];
  const servers: Server[] = [];
  let skip: string | false = false;

  const replies: Record<string, string | undefined> = {
    [hosts.answers]: '% This is the RIS whois server\n\n64496\t192.0.2.0/24\t100\n',
    [hosts.comments]: '% This is the RIS whois server\n% No entries found\n\n',
    // Reads the request and hangs up without a word.
    [hosts.mute]: undefined,
  };

  before(async () => {
    try {
      for (const [host, reply] of Object.entries(replies)) {
        const server = createServer((socket) => {
          let text = '';
          socket.on('data', (chunk: Buffer) => {
            text += chunk.toString('latin1');
            if (!text.endsWith('\n')) return;
            requests.push({ host, text });
            socket.end(reply ?? '');
          });
          socket.on('error', () => undefined);
        });
        servers.push(server);
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(43, host, () => resolve());
        });
      }
    } catch (error) {
      skip = `cannot listen on port 43 of 127.43.0.x (${(error as NodeJS.ErrnoException).code ?? String(error)}); needs root, as the lab does`;
    }
  });
  after(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** Source names resolve to the loopback host of the same name; 'nowhere' resolves to nothing. */
  const resolveHost = (host: Name): Promise<string[]> => {
    const label = host.toString().split('.')[0] as keyof typeof hosts | 'nowhere';
    return Promise.resolve(label === 'nowhere' ? [] : [hosts[label]]);
  };
  const ripe = (...labels: string[]) => ({
    style: 'RIPE',
    sources: { Cymru: ['asn.unused.test'], RIPE: labels.map((l) => `${l}.whois.test`) },
  });
  const noZones = (): Promise<Message | undefined> => {
    throw new Error('a RIPE lookup must not ask for TXT records');
  };
  const asked = (): string[] => requests.splice(0).map((r) => `${r.host} ${r.text}`);

  test('the first line that is not a comment gives the ASN and prefix', (t) => {
    if (skip) return t.skip(skip);
    return (async () => {
      assert.deepEqual(await lookUpAsn('192.0.2.1', ripe('answers', 'comments'), noZones, resolveHost), {
        status: 'found',
        asns: [64496],
        prefix: '192.0.2.0/24',
        raw: '64496\t192.0.2.0/24\t100',
      });
      assert.deepEqual(asked(), [`${hosts.answers} -F -M 192.0.2.1\n`]);
    })();
  });

  test('a source that refuses the connection, one that resolves to nothing, and one that says nothing are passed over for the next', (t) => {
    if (skip) return t.skip(skip);
    return (async () => {
      assert.equal((await lookUpAsn('2001:db8::1', ripe('refused', 'answers'), noZones, resolveHost))?.status, 'found');
      assert.deepEqual(asked(), [`${hosts.answers} -F -M 2001:db8::1\n`]);
      assert.equal((await lookUpAsn('192.0.2.1', ripe('nowhere', 'answers'), noZones, resolveHost))?.status, 'found');
      assert.deepEqual(asked(), [`${hosts.answers} -F -M 192.0.2.1\n`]);
      assert.equal((await lookUpAsn('192.0.2.1', ripe('mute', 'answers'), noZones, resolveHost))?.status, 'found');
      assert.deepEqual(asked(), [`${hosts.mute} -F -M 192.0.2.1\n`, `${hosts.answers} -F -M 192.0.2.1\n`]);
    })();
  });

  test('a source that answers with comments only means no AS announces the address; later sources are not asked', (t) => {
    if (skip) return t.skip(skip);
    return (async () => {
      assert.deepEqual(await lookUpAsn('192.0.2.1', ripe('comments', 'answers'), noZones, resolveHost), { status: 'empty' });
      assert.deepEqual(asked(), [`${hosts.comments} -F -M 192.0.2.1\n`]);
    })();
  });

  test('when no source can be reached or says anything it is a database error', (t) => {
    if (skip) return t.skip(skip);
    return (async () => {
      assert.deepEqual(await lookUpAsn('192.0.2.1', ripe('refused', 'mute'), noZones, resolveHost), { status: 'error' });
      assert.deepEqual(await lookUpAsn('192.0.2.1', ripe('nowhere'), noZones, resolveHost), { status: 'error' });
      assert.deepEqual(asked(), [`${hosts.mute} -F -M 192.0.2.1\n`]);
    })();
  });
});
