// Messages between the host side (startLab) and the supervisor inside the namespace. They travel on
// Node's IPC channel with structured-clone serialisation, so byte arrays pass as they are; class
// instances do not, hence names as strings and answers as bytes that the host decodes itself.
import type { QueryOptions, ServerAddress, Transport } from '@app/dns';

export interface QueryRequest {
  id: number;
  op: 'query';
  server: ServerAddress;
  question: { name: string; type: number; class?: number };
  options: Omit<QueryOptions, 'signal'>;
}

/** Serve the Unix socket `socketPath` by connecting to host:port inside the namespace. */
export interface ForwardRequest {
  id: number;
  op: 'forward';
  socketPath: string;
  host: string;
  port: number;
}

export type SupervisorRequest = QueryRequest | ForwardRequest;

export type ForwardResult = { ok: true } | { ok: false; error: string };

export type WireQueryResult = { transport: Transport; rttMs: number } & (
  | { outcome: 'response'; bytes: Uint8Array; from: string; truncatedUdp?: Uint8Array }
  | { outcome: 'malformed'; bytes: Uint8Array; truncatedUdp?: Uint8Array }
  | { outcome: 'timeout' }
  | { outcome: 'network-error'; error: string }
);

export type SupervisorMessage =
  | { event: 'ready'; startup: Record<string, number> }
  | { event: 'failed'; message: string }
  | { id: number; result: WireQueryResult | ForwardResult };
