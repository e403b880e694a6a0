// The run's query log (net/network.ts's Exchange, as --save keeps it) read back into replies the
// chain analysis can look through: who was asked what, with which flags, and what came back.
import { decodeMessage, Name, type Message } from '@app/dns';
import type { Exchange } from '../net/network.ts';

export interface LoggedReply {
  /** The name server's name as the engine knew it, lower case, without the final dot. */
  serverName: string;
  address: string;
  qname: Name;
  qtype: number;
  dnssec: boolean;
  transport: 'udp' | 'tcp';
  /** Undefined when nothing came back or the reply did not decode. */
  message?: Message;
}

/** "ns1.example.test/192.0.2.1" (Nameserver's toString) into its name and address. */
function splitServer(server: string): { serverName: string; address: string } {
  const slash = server.lastIndexOf('/');
  if (slash < 0) return { serverName: '', address: server };
  return { serverName: server.slice(0, slash).toLowerCase().replace(/\.$/, ''), address: server.slice(slash + 1) };
}

export function readQueryLog(exchanges: readonly Exchange[]): LoggedReply[] {
  const replies: LoggedReply[] = [];
  for (const exchange of exchanges) {
    let qname: Name;
    try {
      qname = Name.fromString(exchange.qname);
    } catch {
      continue;
    }
    let message: Message | undefined;
    if (exchange.reply !== undefined) {
      try {
        message = decodeMessage(Buffer.from(exchange.reply, 'base64'));
      } catch {
        message = undefined;
      }
    }
    replies.push({
      ...splitServer(exchange.server),
      qname,
      qtype: exchange.qtype,
      dnssec: exchange.flags.dnssec === true,
      transport: exchange.transport,
      ...(message && { message }),
    });
  }
  return replies;
}
