// The JSON-RPC methods the interface calls, typed as the spec describes their results. Calls go
// to the page's own origin, where the service answers POSTs on any path.
import type {
  NameServer,
  DsInfo,
  TestParams,
  TestResults,
  HistoryEntry,
  TestEvidence,
  QueryView,
  ChainJson,
  TestActivity,
  BatchStatus,
  Watch,
  DnssecTimeline,
  Credentials,
  ValidationError,
} from '../../shared/api-shapes.ts';

export type * from '../../shared/api-shapes.ts';

export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }

  /** What to show: the message, and the cause the service gave in `data.reason` (why a DNS lookup failed), if any. */
  get explanation(): string {
    const reason = typeof this.data === 'object' && this.data !== null ? (this.data as { reason?: unknown }).reason : undefined;
    return typeof reason === 'string' && reason !== '' ? `${this.message}: ${reason}` : this.message;
  }

  /** The -32602 list of `{path, message}`, or an empty list for any other error. */
  get validationErrors(): ValidationError[] {
    if (this.code !== -32602 || !Array.isArray(this.data)) return [];
    return (this.data as unknown[]).filter(
      (e): e is ValidationError => typeof e === 'object' && e !== null && typeof (e as ValidationError).path === 'string',
    );
  }
}

let nextId = 1;

async function call<T>(method: string, params?: object): Promise<T> {
  const response = await fetch('/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) }),
  });
  const reply = (await response.json()) as { result?: T; error?: { code: number; message: string; data?: unknown } };
  if (reply.error) throw new RpcError(reply.error.code, reply.error.message, reply.error.data);
  return reply.result as T;
}

export const api = {
  versionInfo: () => call<Record<string, string>>('version_info'),
  profileNames: () => call<string[]>('profile_names'),
  languageTags: () => call<string[]>('get_language_tags'),
  dataFromParentZone: (domain: string, language: string) =>
    call<{ ns_list: NameServer[]; ds_list: DsInfo[] }>('get_data_from_parent_zone', { domain, language }),
  startDomainTest: (params: TestParams & { language: string }) =>
    call<string>('start_domain_test', { ...params, client_id: 'web-interface' }),
  testProgress: (testId: string) => call<number>('test_progress', { test_id: testId }),
  testParams: (testId: string) => call<TestParams>('get_test_params', { test_id: testId }),
  testResults: (id: string, language: string) => call<TestResults>('get_test_results', { id, language }),
  testHistory: (domain: string, filter: 'all' | 'delegated' | 'undelegated', offset: number, limit: number) =>
    call<HistoryEntry[]>('get_test_history', { frontend_params: { domain }, filter, offset, limit }),
  testEvidence: (id: string) => call<TestEvidence>('get_test_evidence', { id }),
  testQueries: (id: string, testcase: string) => call<QueryView[]>('get_test_queries', { id, testcase }),
  testChain: (id: string) => call<ChainJson>('get_test_chain', { id }),
  testActivity: (testId: string) => call<TestActivity>('test_activity', { test_id: testId }),
  batchStatus: (batchId: string) => call<BatchStatus>('get_batch_job_result', { batch_id: batchId }),
  dnssecTimeline: (domain: string) => call<DnssecTimeline>('get_dnssec_timeline', { domain }),
  watchList: (credentials: Credentials, domain: string) => call<{ watches: Watch[] }>('watch_list', { ...credentials, domain }),
  watchAdd: (
    credentials: Credentials,
    watch: { domain: string; schedule: string; language: string; webhook_url?: string; email?: string },
  ) => call<{ watch_id: number; next_run_at: string; webhook_secret?: string }>('watch_add', { ...credentials, ...watch }),
  watchRemove: (credentials: Credentials, watchId: number) =>
    call<{ removed: true }>('watch_remove', { ...credentials, watch_id: watchId }),
};
