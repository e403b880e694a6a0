// Asks what the chain needs that the run did not (needed-questions.ts), through a network of its own
// with the run's profile, so the exchanges join the run's log (and a saved run holds them). A few
// rounds: the NS RRset of a zone whose servers were unknown names them, and the next round asks them.
import { Name } from '@app/dns';
import { Network, type Exchange } from '../net/network.ts';
import type { Profile } from '../profile/profile.ts';
import { neededQuestions } from './needed-questions.ts';

const rounds = 3;

export interface AskNeededInput {
  domain: string;
  /** The run's exchanges; what is asked is appended here too. */
  exchanges: Exchange[];
  profile: Profile;
  signal?: AbortSignal;
  onExchange?: (exchange: Exchange) => void;
}

/** Asks the chain's missing questions and returns how many were sent. */
export async function askChainQuestions(input: AskNeededInput): Promise<number> {
  const families = { ipv4: input.profile.net.ipv4, ipv6: input.profile.net.ipv6 };
  if (!families.ipv4 && !families.ipv6) return 0;
  const network = new Network({
    ...families,
    resolver: input.profile.resolver.defaults,
    signal: input.signal ?? new AbortController().signal,
    onExchange: (exchange) => {
      input.exchanges.push(exchange);
      input.onExchange?.(exchange);
    },
  });
  let sent = 0;
  for (let round = 0; round < rounds; round++) {
    const questions = neededQuestions(input.domain, input.exchanges, families);
    if (questions.length === 0) break;
    sent += questions.length;
    await Promise.all(questions.map((q) => network.server(Name.fromString(q.server), q.address).query(q.qname, q.qtype, { dnssec: true })));
  }
  return sent;
}
