// Transport02: DNS over HTTPS at /dns-query on port 443 of each name server address (RFC 8484 §4.1):
// whether GET and POST are answered with application/dns-message, and with a certificate valid for
// the server's name.
import { RRType } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase, TestContext } from '../../framework/test-case.ts';
import type { Nameserver } from '../../net/nameserver-client.ts';
import { authenticated, closed, reason, soaSerial, testedServers } from './servers.ts';

export const dohTags = ['DOH_NOT_OFFERED', 'DOH_TIMEOUT', 'DOH_RESULT', 'DOH_GET_FAILED', 'DOH_POST_FAILED', 'DOH_CERT_INVALID'] as const;

async function checkServer(server: Nameserver, context: TestContext): Promise<Message[]> {
  const [get, post] = await Promise.all([
    server.encrypted(context.zone.name, RRType.SOA, 'doh-get'),
    server.encrypted(context.zone.name, RRType.SOA, 'doh-post'),
  ]);
  if (!get || !post) return [];
  const ns = server.toString();
  if (closed(get) && closed(post)) return [{ tag: 'DOH_NOT_OFFERED', args: { ns } }];
  if (!get.session && !post.session && get.failure === 'timeout' && post.failure === 'timeout')
    return [{ tag: 'DOH_TIMEOUT', args: { ns, seconds: context.profile.resolver.defaults.timeout } }];
  const messages: Message[] = [
    {
      tag: 'DOH_RESULT',
      args: {
        ns,
        get: get.message ? 'yes' : 'no',
        post: post.message ? 'yes' : 'no',
        soa_serial: soaSerial(post.message ?? get.message) ?? '',
      },
    },
  ];
  if (!get.message) messages.push({ tag: 'DOH_GET_FAILED', args: { ns, reason: reason(get) } });
  if (!post.message) messages.push({ tag: 'DOH_POST_FAILED', args: { ns, reason: reason(post) } });
  const session = post.session ?? get.session;
  if (session && !authenticated(session))
    messages.push({ tag: 'DOH_CERT_INVALID', args: { ns, reason: session.authenticationError ?? '' } });
  return messages;
}

export const transport02: TestCase = {
  id: 'Transport02',
  spec: 'RFC 8484 §4.1, §6',
  tags: dohTags,
  async run(context) {
    const servers = await testedServers(context);
    return (await Promise.all(servers.map((s) => checkServer(s, context)))).flat();
  },
};
