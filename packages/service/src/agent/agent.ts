// The test agent: claims queued tests of its queue and runs many of them at once with the engine,
// writing progress as it goes and the results at the end. Its claims are leases it keeps renewing,
// so the tests of an agent that died are taken up again by the next one.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { Database } from '@app/database';
import {
  analyseChain,
  runTestsWithChain,
  type Exchange,
  type Finding,
  type RootHint,
  type RunOptions,
  type SharedAnswers,
  type TestInput,
} from '@app/engine';
import type { LoadedProfile } from '../config/profiles.ts';
import type { ServiceConfig } from '../config/service-config.ts';
import { recordHeartbeat, removeHeartbeat } from '../db/agent-heartbeats.ts';
import {
  claimNextTest,
  claimOrphanedTest,
  finishTest,
  overallResult,
  releaseTests,
  renewLeases,
  reportProgress,
  type Claimant,
  type ClaimedTest,
} from '../db/queue.ts';
import type { AgentMetrics } from '../metrics/service-metrics.ts';
import { rootHintsOf } from '../config/root-hints.ts';
import type { ServiceSchema } from '../db/tables.ts';
import { testDied, unableToFinish } from './backend-entries.ts';
import { Backoff } from './backoff.ts';
import { engineInput } from './engine-input.ts';
import { ProgressWriter } from './progress-writer.ts';
import { RunEvidence } from './run-evidence.ts';
import { storeQueryLog, writeActivity } from '../db/test-evidence.ts';

export type RunTests = (input: TestInput, options: RunOptions) => Promise<Finding[]>;

export type AgentConfig = Pick<
  ServiceConfig,
  | 'lockOnQueue'
  | 'frontendProcesses'
  | 'batchProcesses'
  | 'maxExecutionSeconds'
  | 'pollingIntervalSeconds'
  | 'rootHintsFile'
  | 'maximalRetries'
> &
  Partial<Pick<ServiceConfig, 'agentLeaseSeconds'>>;

/** The heartbeat's period at most: /readyz counts an agent alive when seen in the last 60 s (AGENT_ALIVE_SECONDS). */
const MAX_RENEWAL_MS = 20_000;

export interface AgentOptions {
  database: Database<ServiceSchema>;
  config: AgentConfig;
  profiles: ReadonlyMap<string, LoadedProfile>;
  /** The engine's run; a test may pass another. */
  runTests?: RunTests;
  /** Seconds a claim holds without renewal (config.agentLeaseSeconds, 60 by default); renewed three times within it. */
  leaseSeconds?: number;
  log?: (line: string) => void;
  /** Told of tests started and finished and of DNS queries (the service's /metrics). */
  metrics?: AgentMetrics;
  /** Answers about parents and shared name servers, shared with the other agents (redis-shared-answers.ts). */
  sharedAnswers?: SharedAnswers;
}

interface RunningTest {
  claimed: ClaimedTest;
  controller: AbortController;
  /** Fires when stop() gives the test back to the queue: nothing more may be written for it. */
  released: AbortController;
  done: Promise<void>;
  /** The queries and activity of its run (none for a test finished as died without running). */
  evidence?: RunEvidence;
}

class ExecutionTimeout extends Error {
  override name = 'ExecutionTimeout';
}

export class Agent {
  readonly name: string;
  readonly #database: Database<ServiceSchema>;
  readonly #config: AgentConfig;
  readonly #runTests: RunTests;
  readonly #profiles: ReadonlyMap<string, LoadedProfile>;
  readonly #rootHints: RootHint[] | undefined;
  readonly #claimant: Claimant;
  readonly #capacity: number;
  readonly #log: (line: string) => void;
  readonly #metrics: AgentMetrics | undefined;
  readonly #sharedAnswers: SharedAnswers | undefined;
  readonly #running = new Map<number, RunningTest>();
  #stopping = false;
  #loop: Promise<void> | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;

  constructor(options: AgentOptions) {
    this.name = `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
    this.#database = options.database;
    this.#config = options.config;
    // The run, then the few questions its chain of trust still needs (stored with the test for get_test_chain).
    this.#runTests = options.runTests ?? runTestsWithChain;
    this.#profiles = options.profiles;
    this.#rootHints = rootHintsOf(options.config);
    this.#claimant = { agent: this.name, leaseSeconds: options.leaseSeconds ?? options.config.agentLeaseSeconds ?? 60 };
    // The reference's two process counts together bound the tests running at once.
    this.#capacity = Math.max(1, options.config.frontendProcesses + options.config.batchProcesses);
    this.#log = options.log ?? ((line) => console.error(`agent ${this.name}: ${line}`));
    this.#metrics = options.metrics;
    this.#sharedAnswers = options.sharedAnswers;
  }

  /** Tests running now. */
  get running(): number {
    return this.#running.size;
  }

  start(): void {
    if (this.#loop !== undefined) return;
    this.#heartbeat = setInterval(() => void this.#renew(), Math.min(MAX_RENEWAL_MS, (this.#claimant.leaseSeconds * 1000) / 3));
    void this.#beat();
    this.#loop = this.#claimLoop();
  }

  /**
   * Stops claiming and lets running tests finish for up to `graceMs`; tests still running then are
   * stopped and given back to the queue, where another agent takes them up.
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    this.#wakeUp();
    await this.#loop;
    const all = Promise.all([...this.#running.values()].map((test) => test.done));
    const timer = new AbortController();
    await Promise.race([all, delay(graceMs, undefined, { signal: timer.signal }).catch(() => undefined)]);
    timer.abort();
    const left = [...this.#running.values()];
    for (const test of left) {
      test.released.abort();
      test.controller.abort(new Error('the agent is stopping'));
    }
    clearInterval(this.#heartbeat);
    await removeHeartbeat(this.#database.db, this.name).catch(() => undefined);
    if (left.length === 0) return;
    try {
      await releaseTests(
        this.#database.db,
        this.name,
        left.map((test) => test.claimed.id),
      );
      this.#log(`stopped with ${left.length} test(s) unfinished; they are back in the queue`);
    } catch (error) {
      this.#log(
        `stopped with ${left.length} test(s) unfinished; another agent takes them up when their claim expires (${describe(error)})`,
      );
    }
  }

  async #claimLoop(): Promise<void> {
    const backoff = new Backoff();
    const pollMs = Math.max(50, this.#config.pollingIntervalSeconds * 1000);
    // Other agents' leases may be shorter than ours: look for expired ones at least every 30 s.
    const orphanCheckMs = Math.min(30_000, (this.#claimant.leaseSeconds * 1000) / 2);
    let nextOrphanCheck = 0;
    while (!this.#stopping) {
      if (this.#running.size >= this.#capacity) {
        await this.#sleep(Infinity);
        continue;
      }
      let claimed: ClaimedTest | undefined;
      try {
        const { db, dialect } = this.#database;
        if (Date.now() >= nextOrphanCheck) {
          claimed = await claimOrphanedTest(db, dialect, this.#config.lockOnQueue, this.#claimant);
          if (claimed === undefined) nextOrphanCheck = Date.now() + orphanCheckMs;
          else this.#log(`took up test ${claimed.hashId}, whose agent stopped answering (attempt ${claimed.attempts})`);
        }
        claimed ??= await claimNextTest(db, dialect, this.#config.lockOnQueue, this.#claimant);
        backoff.reset();
      } catch (error) {
        const wait = backoff.next();
        this.#log(`cannot claim tests (${describe(error)}); trying again in ${wait} ms`);
        await this.#sleep(wait);
        continue;
      }
      if (claimed === undefined) await this.#sleep(pollMs);
      else this.#launch(claimed);
    }
  }

  #launch(claimed: ClaimedTest): void {
    const test: RunningTest = { claimed, controller: new AbortController(), released: new AbortController(), done: Promise.resolve() };
    this.#running.set(claimed.id, test);
    test.done = this.#execute(test).finally(() => {
      this.#running.delete(claimed.id);
      this.#wakeUp();
    });
  }

  /** Runs one test to its stored end; never rejects. */
  async #execute(test: RunningTest): Promise<void> {
    const { claimed, controller } = test;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started) / 1000;
    const maxSeconds = this.#config.maxExecutionSeconds;
    let entries: Finding[];
    let chain: string | undefined;
    let died: 'died' | 'timed_out' | undefined;
    if (claimed.attempts > 1 + this.#config.maximalRetries) {
      died = 'died';
      this.#log(`test ${claimed.hashId} was cut short ${claimed.attempts - 1} times; it is finished as died`);
      entries = [testDied(0)];
    } else {
      const timer = setTimeout(() => controller.abort(new ExecutionTimeout()), maxSeconds * 1000);
      const progress = new ProgressWriter((percent) => reportProgress(this.#database.db, claimed.hashId, percent));
      const evidence = new RunEvidence((activity) => writeActivity(this.#database.db, claimed.hashId, activity));
      test.evidence = evidence;
      const metrics = this.#metrics;
      metrics?.testStarted();
      try {
        const input = engineInput(claimed.params, this.#profiles);
        const exchanges: Exchange[] = [];
        const hooks = evidence.hooks((percent) => progress.report(percent));
        const run = this.#runTests(input, {
          ...(this.#rootHints !== undefined && { rootHints: this.#rootHints }),
          ...(this.#sharedAnswers !== undefined && { sharedAnswers: this.#sharedAnswers }),
          ...hooks,
          // The evidence, the chain and the metrics all read the same exchanges.
          onExchange: (exchange) => {
            hooks.onExchange?.(exchange);
            exchanges.push(exchange);
            if (exchange.shared !== true) metrics?.dnsQuery(exchange.reply !== undefined);
          },
          signal: controller.signal,
        });
        entries = await untilAborted(run, controller.signal);
        chain = this.#chainOf(claimed, input.domain, exchanges);
      } catch (error) {
        if (test.released.signal.aborted) return;
        if (controller.signal.reason instanceof ExecutionTimeout) {
          this.#log(`test ${claimed.hashId} (${claimed.params.domain}) ran past ${maxSeconds} s and was stopped`);
          entries = [unableToFinish(maxSeconds)];
          died = 'timed_out';
        } else {
          this.#log(`test ${claimed.hashId} (${claimed.params.domain}) failed: ${describe(error)}`);
          entries = [testDied(elapsed())];
          died = 'died';
        }
      } finally {
        clearTimeout(timer);
        evidence.stop();
      }
      await progress.idle();
    }
    if (await this.#store(test, entries, chain)) {
      this.#metrics?.testFinished(overallResult(entries.map((e) => e.level)), elapsed());
      if (died !== undefined) this.#metrics?.testDied(died);
    }
  }

  /** The delegation and DNSSEC chain read from the run's queries, as JSON text; a failure only loses the chain. */
  #chainOf(claimed: ClaimedTest, domain: string, exchanges: readonly Exchange[]): string | undefined {
    try {
      return JSON.stringify(analyseChain({ domain, exchanges }));
    } catch (error) {
      this.#log(`test ${claimed.hashId} (${domain}): the chain could not be analysed: ${describe(error)}`);
      return undefined;
    }
  }

  /** Stores the results, trying again while the database is away, until stored (true) or given back. */
  async #store(test: RunningTest, entries: Finding[], chain?: string): Promise<boolean> {
    const backoff = new Backoff();
    while (!test.released.signal.aborted) {
      try {
        const finished = await finishTest(this.#database.db, test.claimed.hashId, entries, chain);
        // Another run finished it first (a lease that ran out while this one still ran): said, so an
        // operator can see a test that ran twice to completion, and only the first result kept.
        if (!finished) this.#log(`test ${test.claimed.hashId} was already finished by another run; these results are dropped`);
        if (finished && test.evidence !== undefined) {
          // The findings stand without it: a log that cannot be stored is said, not retried.
          await storeQueryLog(this.#database.db, test.claimed.hashId, test.evidence.queries).catch((error: unknown) =>
            this.#log(`cannot store the query log of test ${test.claimed.hashId} (${describe(error)})`),
          );
        }
        return finished;
      } catch (error) {
        const wait = backoff.next();
        this.#log(`cannot store the results of test ${test.claimed.hashId} (${describe(error)}); trying again in ${wait} ms`);
        await delay(wait, undefined, { signal: test.released.signal }).catch(() => undefined);
      }
    }
    return false;
  }

  async #beat(): Promise<void> {
    try {
      await recordHeartbeat(this.#database.db, this.name);
    } catch (error) {
      this.#log(`cannot record the heartbeat (${describe(error)})`);
    }
  }

  async #renew(): Promise<void> {
    await this.#beat();
    try {
      await renewLeases(this.#database.db, this.#claimant, [...this.#running.keys()]);
    } catch (error) {
      this.#log(`cannot renew the claims on running tests (${describe(error)})`);
    }
  }

  /** Waits for `ms`, or less when a test ends or the agent stops. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(() => this.#wakeUp(), ms) : undefined;
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  #wakeUp(): void {
    this.#wake?.();
  }
}

/** The run's findings, or the abort's reason as soon as the signal fires, even if the run ignores it. */
function untilAborted<T>(run: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void run.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
