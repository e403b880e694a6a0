import assert from 'node:assert/strict';
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { after, before, describe, test } from 'node:test';
import { createQuerier, decodeMessage, encodeMessage, type Message, Name, query, recordIs, RRClass, RRType, transferZone } from '@app/dns';
import { namedMissing, startNamed, type RunningNamed } from './helpers/named.ts';

const bigTxt = Array.from({ length: 30 }, (_, i) => `big IN TXT "${String(i).padStart(3, '0')} ${'x'.repeat(90)}"`).join('\n');
const zone = `$TTL 300
@ IN SOA ns1.example.test. hostmaster.example.test. 2026112101 7200 3600 1209600 300
@ IN NS ns1
ns1 IN A 192.0.2.53
www IN A 192.0.2.80
www IN AAAA 2001:db8::80
${bigTxt}
`;

/** A UDP endpoint we script ourselves, for replies no real server would send. */
async function fakeServer(onQuery: (msg: Message, from: RemoteInfo, socket: Socket) => void) {
  const socket = createSocket('udp4');
  socket.on('message', (bytes, from) => onQuery(decodeMessage(new Uint8Array(bytes)), from, socket));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: socket.address().port, close: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
}

const missing = namedMissing();
if (missing) console.log(`# skipping the BIND transport tests: ${missing}`);

describe('queries against BIND on loopback', { skip: missing }, () => {
  let named: RunningNamed;
  before(async () => {
    named = await startNamed([{ origin: 'example.test.', text: zone }], 'max-udp-size 4096; allow-transfer { any; };');
  });
  after(() => named?.stop());

  test('a zone transfer reads every message up to the closing SOA', async () => {
    const r = await transferZone({ address: '127.0.0.1', port: named.port }, 'example.test.', { timeoutMs: 2000 });
    assert.equal(r.outcome, 'complete');
    const records = r.messages.flatMap((m) => m.answer);
    assert.equal(records[0].type, RRType.SOA);
    assert.equal(records.at(-1)!.type, RRType.SOA);
    assert.equal(records.filter((rr) => rr.type === RRType.TXT).length, 30);
  });

  test('a transfer can stop at the first message', async () => {
    const r = await transferZone({ address: '127.0.0.1', port: named.port }, 'example.test.', { timeoutMs: 2000, onMessage: () => false });
    assert.equal(r.outcome, 'stopped');
    assert.equal(r.messages.length, 1);
    assert.equal(r.messages[0].answer[0].type, RRType.SOA);
  });

  test('a transfer of a zone the server does not serve is refused', async () => {
    const r = await transferZone({ address: '127.0.0.1', port: named.port }, 'other.test.', { timeoutMs: 2000 });
    assert.equal(r.outcome, 'refused');
    assert.notEqual(r.messages[0].rcode, 0);
  });

  test('UDP over IPv4 and IPv6, and TCP, give the zone data', async () => {
    for (const [address, transport] of [
      ['127.0.0.1', 'udp'],
      ['::1', 'udp'],
      ['127.0.0.1', 'tcp'],
    ] as const) {
      const r = await query({ address, port: named.port }, { name: 'www.example.test.', type: RRType.A }, { transport, timeoutMs: 2000 });
      assert.equal(r.outcome, 'response', `${address} ${transport}`);
      assert.equal(r.transport, transport);
      assert.ok(r.rttMs > 0);
      assert.equal(r.message.aa, true);
      const a = r.message.answer[0];
      assert.ok(recordIs(a, RRType.A));
      assert.equal(a.rdata.address, '192.0.2.80');
      assert.deepEqual(decodeMessage(r.bytes).id, r.message.id);
    }
  });

  test('a truncated UDP answer is retried over TCP', async () => {
    const r = await query({ address: '127.0.0.1', port: named.port }, { name: 'big.example.test.', type: RRType.TXT }, { timeoutMs: 2000 });
    assert.equal(r.outcome, 'response');
    assert.equal(r.transport, 'tcp');
    assert.equal(r.truncatedUdp?.tc, true);
    assert.equal(r.message.tc, false);
    assert.equal(r.message.answer.length, 30);
    const noFallback = await query(
      { address: '127.0.0.1', port: named.port },
      { name: 'big.example.test.', type: RRType.TXT },
      { timeoutMs: 2000, tcFallback: false },
    );
    assert.equal(noFallback.transport, 'udp');
    assert.ok(noFallback.outcome === 'response' && noFallback.message.tc);
  });

  test('EDNS payload size and the DO, CD and RD flags reach the server', async () => {
    const r = await query(
      { address: '127.0.0.1', port: named.port },
      { name: 'big.example.test.', type: RRType.TXT },
      { timeoutMs: 2000, edns: { udpSize: 4096, do: true }, rd: true, cd: true, tcFallback: false },
    );
    assert.equal(r.outcome, 'response');
    // 4096 bytes of room: the whole RRset fits in one datagram.
    assert.equal(r.transport, 'udp');
    assert.equal(r.message.tc, false);
    assert.equal(r.message.answer.length, 30);
    assert.equal(r.message.edns?.do, true); // RFC 3225: DO is copied into the reply
    assert.equal(r.message.rd, true);
    assert.equal(r.message.cd, true);
    const small = await query(
      { address: '127.0.0.1', port: named.port },
      { name: 'big.example.test.', type: RRType.TXT },
      { timeoutMs: 2000, edns: { udpSize: 1232 }, tcFallback: false },
    );
    assert.ok(small.outcome === 'response' && small.message.tc && small.message.edns?.do === false);
    const plain = await query(
      { address: '127.0.0.1', port: named.port },
      { name: 'www.example.test.', type: RRType.A },
      { timeoutMs: 2000 },
    );
    assert.ok(plain.outcome === 'response' && plain.message.edns === undefined && !plain.message.rd && !plain.message.cd);
  });

  test('responses larger than the bound are refused', async () => {
    const r = await query(
      { address: '127.0.0.1', port: named.port },
      { name: 'big.example.test.', type: RRType.TXT },
      { transport: 'tcp', timeoutMs: 2000, maxResponseSize: 512 },
    );
    assert.equal(r.outcome, 'network-error');
    assert.match(r.error.message, /exceeds the 512-byte limit/);
  });

  test('many queries in flight at once through the capped querier', async () => {
    const querier = createQuerier({ maxInFlight: 8, defaults: { timeoutMs: 3000 } });
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const p = querier.query(
          { address: '127.0.0.1', port: named.port },
          { name: i % 2 ? 'www.example.test.' : 'ns1.example.test.', type: RRType.A },
        );
        peak = Math.max(peak, querier.inFlight);
        return p;
      }),
    );
    assert.equal(peak, 8);
    assert.ok(results.every((r) => r.outcome === 'response' && r.message.answer.length === 1));
    assert.equal(querier.inFlight, 0);
  });
});

describe('transport behaviour with a scripted server', () => {
  test('a silent server gives a timeout outcome after the retries', async () => {
    let received = 0;
    const server = await fakeServer(() => received++);
    const started = Date.now();
    const r = await query({ address: '127.0.0.1', port: server.port }, { name: 'x.test.', type: RRType.A }, { timeoutMs: 100, retries: 2 });
    await server.close();
    assert.equal(r.outcome, 'timeout');
    assert.equal(received, 3);
    assert.ok(Date.now() - started >= 300);
  });

  test('with resendMs, a lost first query is made good at the resend, not after the timeout', async () => {
    let received = 0;
    const server = await fakeServer((q, from, socket) => {
      if (++received === 1) return;
      socket.send(encodeMessage({ id: q.id, qr: true, aa: true, question: q.question }), from.port, from.address);
    });
    const started = Date.now();
    const r = await query(
      { address: '127.0.0.1', port: server.port },
      { name: 'x.test.', type: RRType.A },
      { timeoutMs: 3000, resendMs: 100, retries: 1 },
    );
    const elapsed = Date.now() - started;
    await server.close();
    assert.equal(r.outcome, 'response');
    assert.equal(received, 2);
    assert.ok(elapsed >= 100 && elapsed < 1500, `answered after ${elapsed} ms`);
  });

  test('with resendMs, a silent server costs the resends plus one timeout', async () => {
    let received = 0;
    const server = await fakeServer(() => received++);
    const started = Date.now();
    const r = await query(
      { address: '127.0.0.1', port: server.port },
      { name: 'x.test.', type: RRType.A },
      { timeoutMs: 400, resendMs: 50, retries: 2 },
    );
    const elapsed = Date.now() - started;
    await server.close();
    assert.equal(r.outcome, 'timeout');
    assert.equal(received, 3);
    // 50 + 50 + 400 ms, where one send after another would take 1200.
    assert.ok(elapsed >= 500 && elapsed < 1100, `gave up after ${elapsed} ms`);
  });

  test('replies with the wrong id or question are dropped; ids are random', async () => {
    const ids: number[] = [];
    const server = await fakeServer((q, from, socket) => {
      ids.push(q.id);
      const answer = [{ name: q.question[0].name, type: RRType.A, class: RRClass.IN, ttl: 1, rdata: { address: '192.0.2.9' } }];
      const send = (m: Parameters<typeof encodeMessage>[0]) => socket.send(encodeMessage(m), from.port, from.address);
      send({ id: (q.id + 1) & 0xffff, qr: true, question: q.question, answer: [{ ...answer[0], rdata: { address: '192.0.2.66' } }] });
      send({
        id: q.id,
        qr: true,
        question: [{ ...q.question[0], name: Name.fromString('other.test.') }],
        answer: [{ ...answer[0], rdata: { address: '192.0.2.67' } }],
      });
      send({ id: q.id, qr: true, question: q.question, answer });
    });
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => query({ address: '127.0.0.1', port: server.port }, { name: 'x.test.', type: RRType.A }, { timeoutMs: 1000 })),
    );
    await server.close();
    for (const r of results) {
      assert.equal(r.outcome, 'response');
      const a = r.message.answer[0];
      assert.ok(recordIs(a, RRType.A) && a.rdata.address === '192.0.2.9');
    }
    assert.equal(new Set(ids).size, 4);
  });

  test('an undecodable reply for the query is reported as malformed', async () => {
    const server = await fakeServer((q, from, socket) => {
      const bad = encodeMessage({ id: q.id, qr: true, question: q.question });
      bad[5] = 9; // the question count now lies
      socket.send(bad, from.port, from.address);
    });
    const r = await query({ address: '127.0.0.1', port: server.port }, { name: 'x.test.', type: RRType.A }, { timeoutMs: 1000 });
    await server.close();
    assert.equal(r.outcome, 'malformed');
    assert.equal(r.error.name, 'DnsDecodeError');
  });

  test('a reply from another address is dropped, unless anySource takes it and says where it came from', async () => {
    const other = createSocket('udp4');
    await new Promise<void>((resolve) => other.bind(0, '127.0.0.3', resolve));
    const server = await fakeServer((q, from) => {
      other.send(encodeMessage({ id: q.id, qr: true, question: q.question }), from.port, from.address);
    });
    const strict = await query(
      { address: '127.0.0.1', port: server.port },
      { name: 'x.test.', type: RRType.A },
      { timeoutMs: 200, retries: 0 },
    );
    const any = await query(
      { address: '127.0.0.1', port: server.port },
      { name: 'x.test.', type: RRType.A },
      { timeoutMs: 1000, retries: 0, anySource: true },
    );
    await server.close();
    other.close();
    assert.equal(strict.outcome, 'timeout');
    assert.equal(any.outcome, 'response');
    assert.equal(any.from, '127.0.0.3');
  });

  test('the source address is the one asked for', async () => {
    let seenFrom = '';
    const server = await fakeServer((q, from, socket) => {
      seenFrom = from.address;
      socket.send(encodeMessage({ id: q.id, qr: true, question: q.question }), from.port, from.address);
    });
    const r = await query(
      { address: '127.0.0.1', port: server.port },
      { name: 'x.test.', type: RRType.A },
      { timeoutMs: 1000, sourceAddress: '127.0.0.2' },
    );
    await server.close();
    assert.equal(r.outcome, 'response');
    assert.equal(seenFrom, '127.0.0.2');
  });

  test('an abort signal ends a query, and a waiting one, at once', async () => {
    const server = await fakeServer(() => undefined);
    const controller = new AbortController();
    const querier = createQuerier({ maxInFlight: 1 });
    const first = querier.query(
      { address: '127.0.0.1', port: server.port },
      { name: 'x.test.', type: RRType.A },
      { timeoutMs: 10000, signal: controller.signal },
    );
    const second = querier.query(
      { address: '127.0.0.1', port: server.port },
      { name: 'y.test.', type: RRType.A },
      { timeoutMs: 10000, signal: controller.signal },
    );
    assert.equal(querier.waiting, 1);
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    await assert.rejects(first, { name: 'AbortError' });
    await assert.rejects(second, { name: 'AbortError' });
    assert.ok(Date.now() - started < 1000);
    assert.equal(querier.inFlight, 0);
    await server.close();
  });
});
