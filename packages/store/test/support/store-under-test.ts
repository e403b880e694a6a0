// A real store over real HTTPS on a throwaway database, and a client that trusts its self-signed certificate.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ThrowawayDatabase, TestDatabaseTarget } from '@app/database/testing';
import { Agent, request, type Dispatcher } from 'undici';
import { serveStore, type RunningStore, type ServeOptions } from '../../src/server.ts';
import { issueTestToken } from './test-token.ts';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  json: any;
}

export interface StoreUnderTest {
  store: RunningStore;
  /** https://127.0.0.1:<port>/api/v1 */
  api: string;
  databaseUrl: string;
  /** Sends the harness's all-scopes token unless the request carries its own credentials or is `anonymous`. */
  call(
    method: string,
    pathOrUrl: string,
    options?: { body?: unknown; rawBody?: string; headers?: Record<string, string>; anonymous?: boolean },
  ): Promise<Reply>;
  close(): Promise<void>;
}

/** An answer read whole: its text, and its JSON when it is JSON. */
export async function replyOf(response: Dispatcher.ResponseData): Promise<Reply> {
  const text = await response.body.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

export async function startStoreUnderTest(target: TestDatabaseTarget, extra: Partial<ServeOptions> = {}): Promise<StoreUnderTest> {
  const throwaway: ThrowawayDatabase = await target.create();
  const dataDir = mkdtempSync(join(tmpdir(), 'store-test-'));
  // Suites about other behaviour make more calls than any plan allows in 10 s; the limit's own suite turns it on.
  const store = await serveStore({
    databaseUrl: throwaway.url,
    dataDir,
    host: '127.0.0.1',
    port: 0,
    logLevel: 'silent',
    without: { rateLimit: true },
    ...extra,
  });
  const dispatcher = new Agent({ connect: { ca: store.certificate } });
  const storeId = store.firstStart?.storeId ?? 1;
  const token = await issueTestToken(store.app, storeId);
  return {
    store,
    api: store.apiUrl,
    databaseUrl: throwaway.url,
    async call(method, pathOrUrl, options = {}) {
      const url = pathOrUrl.startsWith('https://') || pathOrUrl.startsWith('http://') ? pathOrUrl : `${store.apiUrl}${pathOrUrl}`;
      const headers: Record<string, string> = { ...options.headers };
      const credentials = ['x-ac-auth-token', 'authorization', 'cookie'].some((name) => name in headers);
      if (options.anonymous !== true && !credentials) headers['x-ac-auth-token'] = token;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      return replyOf(await request(url, { method: method as 'GET', headers, body, dispatcher }));
    },
    async close() {
      await dispatcher.close();
      await store.close();
      await throwaway.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
