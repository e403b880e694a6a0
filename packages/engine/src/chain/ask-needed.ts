// Asks what the chain needs that the run did not (needed-questions.ts), through a network of its own
// with the run's resolver settings and IP families, so the exchanges join the run's log (and a saved
// run holds them). A few rounds: the NS RRset of a zone whose servers were unknown names them, and
// the next round asks them.
import { Name } from '@app/dns';
import { Network, type Exchange, type NetworkOptions } from '../net/network.ts';
import { neededQuestions } from './needed-questions.ts';
import type { SharedAnswers } from '../net/shared-answers.ts';

const rounds = 3;

export interface AskNeededInput {
  domain: string;
  /** The run's exchanges so far. */
  exchanges: readonly Exchange[];
  /** The IP families the run may use, and its profile's resolver settings (`profile.resolver.defaults`). */
  ipv4: boolean;
  ipv6: boolean;
  resolver: NetworkOptions['resolver'];
  /** Each exchange this sends, as the run's own come. */
  onExchange: (exchange: Exchange) => void;
  signal?: AbortSignal;
  /** Answers about the zones above `domain`, shared with other runs. */
  sharedAnswers?: SharedAnswers;
}

/** Asks the chain's missing questions; returns how many were sent. */
export async function askChainQuestions(input: AskNeededInput): Promise<number> {
  const families = { ipv4: input.ipv4, ipv6: input.ipv6 };
  if (!families.ipv4 && !families.ipv6) return 0;
  const log = [...input.exchanges];
  const network = new Network({
    ...families,
    resolver: input.resolver,
    signal: input.signal ?? new AbortController().signal,
    ...(input.sharedAnswers && { shared: { answers: input.sharedAnswers, below: Name.fromString(input.domain) } }),
    onExchange: (exchange) => {
      log.push(exchange);
      input.onExchange(exchange);
    },
  });
  let sent = 0;
  for (let round = 0; round < rounds; round++) {
    const questions = neededQuestions(input.domain, log, families);
    if (questions.length === 0) break;
    sent += questions.length;
    await Promise.all(
      questions.map((q) => network.server(Name.fromString(q.server), q.address).query(q.qname, q.qtype, { dnssec: true }, true)),
    );
  }
  return sent;
}
