// Transport01: DNS over TLS on port 853 of each name server address (RFC 7858, RFC 8310): whether
// the handshake completes, with what TLS version, ALPN and certificate, and whether the certificate
// is valid for the server's name; whether an answer comes over it.
import { RRType } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import type { Nameserver } from '../../net/nameserver-client.ts';
import { authenticated, closed, expired, reason, soaSerial, testedServers, untrusted } from './servers.ts';

export const dotTags = [
  'DOT_NOT_OFFERED',
  'DOT_TIMEOUT',
  'DOT_HANDSHAKE_FAILED',
  'DOT_HANDSHAKE',
  'DOT_NO_ALPN',
  'DOT_NO_ANSWER',
  'DOT_CERT_EXPIRED',
  'DOT_CERT_WRONG_NAME',
  'DOT_CERT_UNTRUSTED',
  'DOT_CERT_INVALID',
  'DOT_CERT_VALID',
] as const;

async function checkServer(server: Nameserver, zone: Parameters<TestCase['run']>[0]['zone'], timeoutSeconds: number): Promise<Message[]> {
  const outcome = await server.encrypted(zone.name, RRType.SOA, 'dot');
  if (!outcome) return [];
  const ns = server.toString();
  if (closed(outcome)) return [{ tag: 'DOT_NOT_OFFERED', args: { ns } }];
  const session = outcome.session;
  if (!session) {
    if (outcome.failure === 'timeout') return [{ tag: 'DOT_TIMEOUT', args: { ns, seconds: timeoutSeconds } }];
    return [{ tag: 'DOT_HANDSHAKE_FAILED', args: { ns, reason: reason(outcome) } }];
  }
  const cert = session.certificate;
  const serial = soaSerial(outcome.message);
  const messages: Message[] = [
    {
      tag: 'DOT_HANDSHAKE',
      args: {
        ns,
        tls_version: session.version,
        alpn: session.alpn ?? '',
        cert_names: cert?.names.join(',') ?? '',
        issuer: cert?.issuer ?? '',
        not_after: cert?.notAfter ?? '',
        cert_valid: authenticated(session) ? 'yes' : 'no',
        soa_serial: serial ?? '',
      },
    },
  ];
  // RFC 8310 §7.1 via IANA: a DoT server answers the `dot` ALPN; one that picks none still works for
  // most clients, but a strict client may refuse it.
  if (session.alpn !== 'dot') messages.push({ tag: 'DOT_NO_ALPN', args: { ns, alpn: session.alpn ?? '' } });
  if (!outcome.message) messages.push({ tag: 'DOT_NO_ANSWER', args: { ns, reason: reason(outcome) } });
  if (authenticated(session)) messages.push({ tag: 'DOT_CERT_VALID', args: { ns, issuer: cert?.issuer ?? '' } });
  else {
    const found: Message[] = [];
    if (cert && expired(session)) found.push({ tag: 'DOT_CERT_EXPIRED', args: { ns, not_after: cert.notAfter } });
    if (cert?.validForName === false) found.push({ tag: 'DOT_CERT_WRONG_NAME', args: { ns, cert_names: cert.names.join(',') } });
    if (untrusted(session)) found.push({ tag: 'DOT_CERT_UNTRUSTED', args: { ns, issuer: cert?.issuer ?? '' } });
    if (found.length === 0) found.push({ tag: 'DOT_CERT_INVALID', args: { ns, reason: session.authenticationError ?? '' } });
    messages.push(...found);
  }
  return messages;
}

export const transport01: TestCase = {
  id: 'Transport01',
  spec: 'RFC 7858 §3, RFC 8310 §7-8, RFC 9539 §4',
  tags: dotTags,
  async run(context) {
    const servers = await testedServers(context);
    const results = await Promise.all(servers.map((s) => checkServer(s, context.zone, context.profile.resolver.defaults.timeout)));
    return results.flat();
  },
};
