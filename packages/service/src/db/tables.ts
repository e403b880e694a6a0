import type { Generated } from 'kysely';

export interface TestTable {
  id: Generated<number>;
  hash_id: string;
  domain: string;
  batch_id: number | null;
  /** ISO 8601 UTC with milliseconds; sorts as text on every database. */
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  priority: number;
  queue: number;
  /** 0 waiting, 1–99 running, 100 finished. */
  progress: number;
  fingerprint: string;
  undelegated: boolean | number;
  profile: string;
  /** The normalised params as JSON text. */
  params: string;
  overall_result: string | null;
  /** The agent running the test (set when claimed). */
  agent: string | null;
  /** Until when the agent's claim holds; a running test past it is taken up by another agent. */
  lease_until: string | null;
  /** Runs started; one more than the runs that were cut short. */
  attempts: Generated<number>;
  /** While it runs: test cases done and queries still unanswered, as JSON (test-evidence.ts). */
  activity: string | null;
}

export interface TestQueriesTable {
  test_id: number;
  /** The query log: JSON, gzip, base64 (test-evidence.ts). */
  log: string;
}

export interface ResultEntryTable {
  id: Generated<number>;
  test_id: number;
  module: string;
  testcase: string;
  tag: string;
  level: string;
  /** JSON text of the finding's arguments. */
  args: string;
  timestamp: number;
}

/** A finished test's findings, all in one value (db/result-entries.ts): from migration 0011 on. */
export interface TestResultTable {
  test_id: number;
  /** gzip'd JSON, base64. */
  entries: string;
}

/** The chain analysis of a finished test (JSON text), when the run produced one. */
export interface TestChainTable {
  test_id: number;
  analysis: string;
}

export interface BatchTable {
  id: Generated<number>;
  username: string;
  created_at: string;
  /** Raised with each change to the states of the batch's tests (one starting, finishing, or purged): a batch answer for a revision stands. */
  revision: Generated<number>;
}

/** Raised with each change to a domain's finished tests (one finishing, or purged): a history answer for a revision stands. No row is revision 0. */
export interface DomainRevisionTable {
  domain: string;
  revision: number;
}

export interface UserTable {
  id: Generated<number>;
  username: string;
  api_key_hash: string;
}

/** Each agent's last heartbeat, for `agents_alive` and /readyz. */
export interface AgentTable {
  name: string;
  seen_at: string;
}

/** A scheduled re-test of a domain, and where its alerts go. */
export interface WatchTable {
  id: Generated<number>;
  /** The API user who added it; null when added from the command line. */
  username: string | null;
  domain: string;
  /** The normalised test params as JSON text (priority: the watch's own, low). */
  params: string;
  /** Canonical text: `every 6h`, `every 30m`, `daily 03:00` (UTC). */
  schedule: string;
  /** The alerts' language (da en es fi fr nb sl sv). */
  language: string;
  webhook_url: string | null;
  /** HMAC-SHA256 key of the webhook's signature; kept as given, since signing needs it. */
  webhook_secret: string | null;
  email: string | null;
  created_at: string;
  next_run_at: string;
  /** The test enqueued for the latest run, until it is finished and compared. */
  pending_test: string | null;
  /** The latest compared test, the next one's "before". */
  last_test: string | null;
}

export interface ServiceSchema {
  dh_test: TestTable;
  /** Findings of tests finished before migration 0011, a row each. */
  dh_result_entry: ResultEntryTable;
  dh_test_result: TestResultTable;
  dh_test_queries: TestQueriesTable;
  dh_test_chain: TestChainTable;
  dh_batch: BatchTable;
  dh_domain_revision: DomainRevisionTable;
  dh_user: UserTable;
  dh_agent: AgentTable;
  dh_watch: WatchTable;
}
