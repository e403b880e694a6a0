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

export interface BatchTable {
  id: Generated<number>;
  username: string;
  created_at: string;
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

export interface ServiceSchema {
  dh_test: TestTable;
  dh_result_entry: ResultEntryTable;
  dh_batch: BatchTable;
  dh_user: UserTable;
  dh_agent: AgentTable;
}
