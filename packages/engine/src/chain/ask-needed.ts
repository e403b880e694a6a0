// Asks what the chain needs that the run did not (needed-questions.ts), through a network of its own
// with the run's profile, so the exchanges join the run's log (and a saved run holds them). A few
// rounds: the NS RRset of a zone whose servers were unknown names them, and the next round asks them.
import { Name } from '@app/dns';
import type { TestInput } from '../input.ts';
import { Network, type Exchange } from '../net/network.ts';
import { defaultProfile } from '../profile/profile.ts';
import { neededQuestions } from './needed-questions.ts';

const rounds = 3;

export interface AskNeededInput {
  /** The run's input: its domain, profile and IP family switches. */
  input: Pick<TestInput, 'domain' | 'profile' | 'ipv4' | 'ipv6'>;
  /** The run's exchanges so far. */
  exchanges: readonly Exchange[];
  /** Each exchange this sends, as the run's own come. */
  onExchange: (exchange: Exchange) => void;
  signal?: AbortSignal;
}

/** Asks the chain's missing questions; returns how many were sent. */
export async function askChainQuestions({ input, exchanges, onExchange, signal }: AskNeededInput): Promise<number> {
  const profile = input.profile ?? defaultProfile();
  const families = { ipv4: input.ipv4 ?? profile.net.ipv4, ipv6: input.ipv6 ?? profile.net.ipv6 };
  if (!families.ipv4 && !families.ipv6) return 0;
  const log = [...exchanges];
  const network = new Network({
    ...families,
    resolver: profile.resolver.defaults,
    signal: signal ?? new AbortController().signal,
    onExchange: (exchange) => {
      log.push(exchange);
      onExchange(exchange);
    },
  });
  let sent = 0;
  for (let round = 0; round < rounds; round++) {
    const questions = neededQuestions(input.domain, log, families);
    if (questions.length === 0) break;
    sent += questions.length;
    await Promise.all(questions.map((q) => network.server(Name.fromString(q.server), q.address).query(q.qname, q.qtype, { dnssec: true })));
  }
  return sent;
}
