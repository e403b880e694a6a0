// The addresses the Transport module asks, and the words its findings use for what it saw.
import { RRType, type Message, type SoaData, type TlsSession } from '@app/dns';
import type { TestContext } from '../../framework/test-case.ts';
import type { Nameserver } from '../../net/nameserver-client.ts';
import type { EncryptedOutcome } from '../../net/encrypted-lanes.ts';

export async function testedServers(context: TestContext): Promise<Nameserver[]> {
  const { zone } = context;
  return (await zone.allServers()).filter((s) => zone.familyEnabled(s.family));
}

/** The zone's SOA serial in a reply, when it has one. */
export function soaSerial(message: Message | undefined): number | undefined {
  const soa = message?.answer.find((rr) => rr.type === RRType.SOA);
  return soa ? (soa.rdata as SoaData).serial : undefined;
}

/** Why no reply came, in the words findings use. */
export const reason = (outcome: EncryptedOutcome | undefined): string => outcome?.detail ?? outcome?.failure ?? 'no reply';

/** Nothing listens: the port refused the connection (RFC 9539 §4.1's "not offered"). */
export const closed = (outcome: EncryptedOutcome): boolean => outcome.session === undefined && outcome.failure === 'connection-refused';

/** The handshake completed and the chain and name check out under the CAs trusted. */
export const authenticated = (session: TlsSession | undefined): boolean => session?.authenticated === true;

/** Chain errors that mean no trusted CA stands behind the certificate (OpenSSL's names). */
const untrustedErrors = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);
export const untrusted = (session: TlsSession): boolean =>
  session.certificate?.selfSigned === true || untrustedErrors.has(session.authenticationError ?? '');

export const expired = (session: TlsSession, now = Date.now()): boolean =>
  session.certificate !== undefined && (Date.parse(session.certificate.notAfter) < now || Date.parse(session.certificate.notBefore) > now);

export const ms = (value: number): number => Math.round(value);
