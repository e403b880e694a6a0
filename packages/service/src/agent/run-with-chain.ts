// The engine's run followed by the few questions its chain of trust still needs (the parents' keys
// and DS, say: the engine's askChainQuestions), so the chain the agent stores with the test holds
// them. Every exchange, the run's and the chain's, goes to `onExchange`.
import { askChainQuestions, defaultProfile, runTests, type Exchange, type Finding, type RunOptions, type TestInput } from '@app/engine';

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
    domain: input.domain, exchanges, ipv4: input.ipv4 ?? profile.net.ipv4, ipv6: input.ipv6 ?? profile.net.ipv6, resolver: profile.resolver.defaults,
    ...(options.signal && { signal: options.signal }),
    onExchange: (exchange) => options.onExchange?.(exchange),
  });
  return findings;
}
