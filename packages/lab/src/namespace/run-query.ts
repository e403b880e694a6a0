// Runs one @app/dns query from inside the namespace (for the host's lab.query).
import { encodeMessage, query } from '@app/dns';
import type { QueryRequest, WireQueryResult } from './supervisor-protocol.ts';

export async function runQuery(request: QueryRequest): Promise<WireQueryResult> {
  const result = await query(request.server, request.question, request.options);
  const common = { transport: result.transport, rttMs: result.rttMs };
  switch (result.outcome) {
    case 'response':
      return {
        ...common,
        outcome: result.outcome,
        bytes: result.bytes,
        from: result.from,
        truncatedUdp: result.truncatedUdp && encodeMessage(result.truncatedUdp),
      };
    case 'malformed':
      return {
        ...common,
        outcome: result.outcome,
        bytes: result.bytes,
        truncatedUdp: result.truncatedUdp && encodeMessage(result.truncatedUdp),
      };
    case 'timeout':
      return { ...common, outcome: 'timeout' };
    case 'network-error':
      return { ...common, outcome: 'network-error', error: result.error.message };
  }
}
