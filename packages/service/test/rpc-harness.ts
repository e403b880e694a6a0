// Starts the RPC service on a throwaway database, listening on loopback, and calls it over HTTP.
import { after, before } from 'node:test';
import type { TestDatabaseTarget, ThrowawayDatabase } from '@app/database/testing';
import { createRpcService, type RpcService } from '../src/app.ts';
import { loadConfig, type ServiceConfig } from '../src/config/service-config.ts';

export interface RpcReply {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface Harness {
  service: RpcService;
  url: string;
  config: ServiceConfig;
  call(method: string, params?: unknown): Promise<RpcReply>;
  post(body: string | Uint8Array, headers?: Record<string, string>): Promise<{ status: number; json: RpcReply }>;
}

/** Registers before/after hooks in the current suite and returns the harness they fill in. */
export function useService(
  target: TestDatabaseTarget,
  adjust: (config: ServiceConfig) => ServiceConfig = (c) => c,
  iniFile?: string,
): Harness {
  let throwaway: ThrowawayDatabase | undefined;
  const harness = {} as Harness;
  before(async () => {
    throwaway = await target.create();
    const config = adjust({ ...loadConfig({ env: {}, ...(iniFile === undefined ? {} : { file: iniFile }) }), databaseUrl: throwaway.url });
    const service = await createRpcService(config);
    const address = await service.app.listen({ host: '127.0.0.1', port: 0 });
    let nextId = 1;
    Object.assign(harness, {
      service,
      config,
      url: address,
      post: async (body: string | Uint8Array, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
        const response = await fetch(address, { method: 'POST', body, headers });
        return { status: response.status, json: (await response.json()) as RpcReply };
      },
    });
    harness.call = async (method, params) => {
      const id = nextId++;
      const { status, json } = await harness.post(
        JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
      );
      if (status !== 200) throw new Error(`HTTP ${status}`);
      if (json.id !== id) throw new Error(`response id ${String(json.id)} for request ${id}`);
      return json;
    };
  });
  after(async () => {
    await harness.service?.close();
    await settle();
    await throwaway?.drop();
  });
  return harness;
}

/**
 * A closed pg pool's sockets can still be open for a moment; dropping the database WITH (FORCE)
 * then makes the server send them an error that nobody listens to any more, which crashes the run.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 300));
}
