// The run's query log (net/network.ts's Exchange, as --save keeps it) read back into replies the
// chain analysis can look through: who was asked what, with which flags, and what came back.
import { decodeMessage, Name, type Message } from '@app/dns';
import { decodedReplies, type Exchange } from '../net/network.ts';

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

// An exchange is read once: the chain's questions read the growing log again each round, and the
// analysis reads it after them; decoding every reply each time was most of their cost.
const readBefore = new WeakMap<Exchange, LoggedReply | null>();

function readExchange(exchange: Exchange): LoggedReply | null {
  let qname: Name;
  try {
    qname = Name.fromString(exchange.qname);
  } catch {
    return null;
  }
  let message: Message | undefined = decodedReplies.get(exchange);
  if (message === undefined && exchange.reply !== undefined) {
    try {
      message = decodeMessage(Buffer.from(exchange.reply, 'base64'));
    } catch {
      message = undefined;
    }
  }
  return {
    ...splitServer(exchange.server),
    qname,
    qtype: exchange.qtype,
    dnssec: exchange.flags.dnssec === true,
    transport: exchange.transport,
    ...(message && { message }),
  };
}

/** The log's replies, in its order; the same exchange object always gives the same (shared, not to be changed) reply. */
export function readQueryLog(exchanges: readonly Exchange[]): LoggedReply[] {
  const replies: LoggedReply[] = [];
  for (const exchange of exchanges) {
    let reply = readBefore.get(exchange);
    if (reply === undefined) {
      reply = readExchange(exchange);
      readBefore.set(exchange, reply);
    }
    if (reply) replies.push(reply);
  }
  return replies;
}
