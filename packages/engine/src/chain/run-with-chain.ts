// A run followed by the few questions its chain of trust still needs (ask-needed.ts), for callers that
// keep the run's exchanges to analyse the chain later (the service's agent): every exchange, the
// run's and the chain's, goes to `onExchange`.
import type { Finding } from '../finding.ts';
import { runTests, type RunOptions } from '../framework/run-tests.ts';
import type { TestInput } from '../input.ts';
import type { Exchange } from '../net/network.ts';
import { askChainQuestions } from './ask-needed.ts';

export async function runTestsWithChain(input: TestInput, options: RunOptions = {}): Promise<Finding[]> {
  const exchanges: Exchange[] = [];
  const findings = await runTests(input, {
    ...options,
    onExchange: (exchange) => {
      exchanges.push(exchange);
      options.onExchange?.(exchange);
    },
  });
  if (!options.signal?.aborted) await askChainQuestions({ input, exchanges, signal: options.signal, onExchange: (exchange) => options.onExchange?.(exchange) });
  return findings;
}
