// ZONEMD (RFC 8976): the apex record the same on every server, and its digest checked against a full
// zone transfer from each server that allows one. Unknown schemes and algorithms are reported, not failed (§4).
import { isSupportedZonemd, parseZonemd, RRType, verifyZonemd, type Message as DnsMessage, type ZonemdData } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase, TestContext } from '../../framework/test-case.ts';
import type { Nameserver } from '../../net/nameserver-client.ts';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
export const zonemdText = (z: ZonemdData): string => `${z.serial} ${z.scheme} ${z.algorithm} ${hex(z.digest)}`;

/** The apex ZONEMD records of one answer, as text, sorted; undefined when the server gave no usable answer. */
function servedZonemd(response: DnsMessage | undefined, context: TestContext): string[] | undefined {
  if (response === undefined || response.rcode !== 0) return undefined;
  return response.answer
    .filter((rr) => rr.type === RRType.ZONEMD && rr.name.equals(context.zone.name) && rr.rdata instanceof Uint8Array)
    .flatMap((rr) => {
      try {
        return [zonemdText(parseZonemd(rr.rdata as Uint8Array))];
      } catch {
        return [];
      }
    })
    .sort();
}

async function transferVerdicts(servers: readonly Nameserver[], context: TestContext): Promise<Message[]> {
  const { zone } = context;
  const transfers = await Promise.all(servers.map((server) => server.transferAll(zone.name)));
  const messages: Message[] = [];
  const refused: string[] = [];
  servers.forEach((server, i) => {
    const ns = server.toString();
    const transfer = transfers[i];
    if (transfer === undefined) return;
    if (transfer.outcome === 'refused' || (transfer.outcome === 'network-error' && transfer.messages.length === 0)) {
      refused.push(ns);
      return;
    }
    if (transfer.outcome !== 'complete') {
      messages.push({ tag: 'ZONEMD_TRANSFER_INCOMPLETE', args: { ns, outcome: transfer.outcome } });
      return;
    }
    messages.push(
      ...digestMessages(
        ns,
        verifyZonemd(
          transfer.messages.flatMap((m) => m.answer),
          zone.name,
        ),
      ),
    );
  });
  if (refused.length === servers.length) messages.push({ tag: 'ZONEMD_NO_TRANSFER', args: { ns_list: refused.join(';') } });
  else if (refused.length > 0) messages.push({ tag: 'ZONEMD_TRANSFER_REFUSED', args: { ns_list: refused.join(';') } });
  return messages;
}

function digestMessages(ns: string, result: ReturnType<typeof verifyZonemd>): Message[] {
  if (result.status === 'absent') return [{ tag: 'ZONEMD_ABSENT_IN_TRANSFER', args: { ns } }];
  return result.records.map(({ zonemd, verdict, computed }): Message => {
    const args = { ns, serial: zonemd.serial, scheme: zonemd.scheme, algorithm: zonemd.algorithm };
    switch (verdict) {
      case 'match':
        return { tag: 'ZONEMD_DIGEST_VERIFIED', args };
      case 'mismatch':
        return { tag: 'ZONEMD_DIGEST_MISMATCH', args: { ...args, digest: hex(zonemd.digest), computed: hex(computed!) } };
      case 'serial-mismatch':
        return { tag: 'ZONEMD_SERIAL_MISMATCH', args: { ...args, soa_serial: result.soaSerial ?? null } };
      case 'duplicate':
        return { tag: 'ZONEMD_DUPLICATE', args };
      case 'unsupported':
        return { tag: 'ZONEMD_NOT_VERIFIABLE', args };
    }
  });
}

async function run(context: TestContext): Promise<Message[]> {
  const { zone } = context;
  const servers = (await zone.allServers()).filter((s) => zone.familyEnabled(s.family));
  const responses = await Promise.all(servers.map((server) => server.query(zone.name, RRType.ZONEMD, { dnssec: true })));
  const served = servers.map((server, i) => ({ server, records: servedZonemd(responses[i], context) }));
  const answered = served.filter((s) => s.records !== undefined);
  const variants = new Map<string, string[]>();
  for (const { server, records } of answered) {
    const key = records!.join(' / ');
    variants.set(key, [...(variants.get(key) ?? []), server.toString()]);
  }
  // No answer at all says nothing of ZONEMD; the other modules report the silence.
  if (answered.length === 0) return [];
  if (answered.every((s) => s.records!.length === 0)) return [{ tag: 'ZONEMD_ABSENT', args: { domain: zone.nameText } }];

  const messages: Message[] = [];
  if (variants.size > 1) {
    for (const [zonemd, list] of variants)
      messages.push({ tag: 'ZONEMD_DIFFERS', args: { ns_list: list.join(';'), zonemd: zonemd || '-' } });
  } else {
    messages.push({ tag: 'ZONEMD_SAME_ON_ALL', args: { zonemd: [...variants.keys()][0], count: answered.length } });
  }
  const unsupported = new Set(
    answered
      .flatMap((s) => s.records!)
      .filter((text) => {
        const [, scheme, algorithm] = text.split(' ').map(Number);
        return !isSupportedZonemd(scheme, algorithm);
      }),
  );
  for (const text of unsupported) {
    const [serial, scheme, algorithm] = text.split(' ').map(Number);
    messages.push({ tag: 'ZONEMD_UNSUPPORTED', args: { serial, scheme, algorithm } });
  }
  messages.push(...(await transferVerdicts(servers, context)));
  return messages;
}

export const zoneIntegrity01: TestCase = {
  id: 'ZoneIntegrity01',
  spec: 'RFC 8976 §3 and §4 (ZONEMD), RFC 5936 (AXFR)',
  tags: [
    'ZONEMD_ABSENT',
    'ZONEMD_SAME_ON_ALL',
    'ZONEMD_DIFFERS',
    'ZONEMD_UNSUPPORTED',
    'ZONEMD_NO_TRANSFER',
    'ZONEMD_TRANSFER_REFUSED',
    'ZONEMD_TRANSFER_INCOMPLETE',
    'ZONEMD_ABSENT_IN_TRANSFER',
    'ZONEMD_DIGEST_VERIFIED',
    'ZONEMD_DIGEST_MISMATCH',
    'ZONEMD_SERIAL_MISMATCH',
    'ZONEMD_DUPLICATE',
    'ZONEMD_NOT_VERIFIABLE',
  ],
  run,
};
