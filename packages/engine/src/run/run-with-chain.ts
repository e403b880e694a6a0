// A run followed by the few questions its chain of trust still needs (the parents' keys and DS, say:
// chain/ask-needed.ts), so a log kept of the run can draw the whole chain. Every exchange, the run's
// and the chain's, goes to `onExchange`; a run stopped by its signal asks nothing more.
import { askChainQuestions } from '../chain/ask-needed.ts';
import type { Exchange } from '../net/network.ts';
import type { Finding } from '../finding.ts';
import type { TestInput } from '../input.ts';
import { defaultProfile } from '../profile/profile.ts';
import { runTests, type RunOptions } from './run-tests.ts';

export async function runTestsWithChain(input: TestInput, options: RunOptions = {}): Promise<Finding[]> {
  const exchanges: Exchange[] = [];
  const findings = await runTests(input, {
    ...options,
    onExchange: (exchange) => {
      exchanges.push(exchange);
      options.onExchange?.(exchange);
    },
  });
  if (options.signal?.aborted) return findings;
  const profile = input.profile ?? defaultProfile();
  await askChainQuestions({
    domain: input.domain,
    exchanges,
    ipv4: input.ipv4 ?? profile.net.ipv4,
    ipv6: input.ipv6 ?? profile.net.ipv6,
    resolver: profile.resolver.defaults,
    ...(options.signal && { signal: options.signal }),
    ...(options.sharedAnswers && { sharedAnswers: options.sharedAnswers }),
    onExchange: (exchange) => options.onExchange?.(exchange),
  });
  return findings;
}
