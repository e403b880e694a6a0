// TSIG (RFC 8945): a signed request carries its MAC as the last record, and a reply's MAC is checked
// over the request's MAC and the reply without its TSIG record, so any change to either is caught.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { decodeMessage, encodeMessage, Name, readTsig, replyMacValid, RRType, signRequest, type TsigKey } from '../src/index.ts';

const key: TsigKey = { name: Name.root, algorithm: 'hmac-sha256', secret: new Uint8Array(32) };
const question = [{ name: Name.fromString('example.test.'), type: RRType.SOA, class: 1 }];

test('a signed request ends with a TSIG record of the key, the algorithm and the request id', () => {
  const { packet, mac } = signRequest(encodeMessage({ id: 4242, question }), key, 1_700_000_000);
  const message = decodeMessage(packet);
  const tsig = readTsig(message)!;
  assert.ok(tsig.isLast && tsig.classIsAny && tsig.ttlIsZero);
  assert.ok(tsig.keyName.equals(Name.root));
  assert.equal(tsig.algorithm.toString(), 'hmac-sha256.');
  assert.equal(tsig.timeSigned, 1_700_000_000);
  assert.equal(tsig.fudge, 300);
  assert.equal(tsig.originalId, 4242);
  assert.deepEqual(tsig.mac, mac);
  assert.equal(mac.length, 32);
});

/** A reply signed as a server with the key would sign it (RFC 8945 §5.3). */
function signedReply(requestMac: Uint8Array, id: number, error = 0): Uint8Array {
  const unsigned = encodeMessage({ id, qr: true, aa: true, question });
  const time = Math.floor(Date.now() / 1000);
  const timers = [0, 0, (time >>> 24) & 0xff, (time >>> 16) & 0xff, (time >>> 8) & 0xff, time & 0xff, 1, 44];
  const algorithm = Name.fromString('hmac-sha256.').wire;
  const variables = [0, 0, 255, 0, 0, 0, 0, ...algorithm, ...timers, error >> 8, error & 0xff, 0, 0];
  const mac = new Uint8Array(
    createHmac('sha256', key.secret)
      .update(Uint8Array.from([0, requestMac.length, ...requestMac]))
      .update(unsigned)
      .update(Uint8Array.from(variables))
      .digest(),
  );
  const rdata = [...algorithm, ...timers, 0, 32, ...mac, id >> 8, id & 0xff, error >> 8, error & 0xff, 0, 0];
  const record = [0, 0, 250, 0, 255, 0, 0, 0, 0, rdata.length >> 8, rdata.length & 0xff, ...rdata];
  const bytes = Uint8Array.from([...unsigned, ...record]);
  bytes[11] += 1;
  return bytes;
}

test('a reply signed with the key over the request MAC checks out; another request MAC or a changed byte does not', () => {
  const { mac } = signRequest(encodeMessage({ id: 7, question }), key);
  const bytes = signedReply(mac, 7);
  const tsig = readTsig(decodeMessage(bytes))!;
  assert.equal(tsig.error, 0);
  assert.ok(replyMacValid(bytes, mac, key, tsig));
  assert.ok(!replyMacValid(bytes, new Uint8Array(32).fill(1), key, tsig));
  const spoilt = Uint8Array.from(bytes);
  spoilt[2] ^= 0x04;
  assert.ok(!replyMacValid(spoilt, mac, key, readTsig(decodeMessage(spoilt))!));
});
