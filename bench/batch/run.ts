// A whole batch end to end, as a registry runs one: N children of the lab's big.test. in one
// add_batch_job, polled with get_batch_job_result until done, on PostgreSQL, with two agents as
// separate OS processes inside the lab, each running tests concurrently. Against zonemaster-cli run
// one domain after another on a sample of the same domains, in the same run (after the batch, so the
// two never share the CPUs).
//   npm run bench:batch [-- --domains 10000] [--parallel 16] [--sample 6] [--latency 30ms] [--cache redis|none] [--agent-heap 256]
// The agents share answers about the parents through a Redis of the bench's own (--cache none: each
// test asks its own), whose memory and hits are printed too.
// Prints tests per minute and the ratio (goal ≥ 30x), CPU seconds per domain of the agents against the
// reference's (goal ≤ 0.1), each agent's peak RSS and its RSS at 10 % and
// 100 % of the batch, database bytes per stored test (and per table), and the time until the first result is readable.
import { parseArgs } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { referenceModules } from '@app/engine';
import { agentHeapMb } from '@app/service';
import {
  bigWorldDomains,
  commandLineDomain,
  describeLatency,
  labUnavailableReason,
  parseLatency,
  referenceCommand,
  referenceUnavailableReason,
  startLab,
} from '@app/lab';
import { sql } from 'kysely';
import {
  agentConfig,
  createBatchDatabase,
  postgresUnavailableReason,
  spawnAgent,
  startApi,
  testsEndedByBackend,
  type AgentProcess,
  type BatchProgress,
} from '../../test/support/batch-lab.ts';
import { cpuBetween, readCpu } from './cpu-by-process.ts';
import { privateRedisUnavailableReason, startPrivateRedis, type PrivateRedis } from '../../test/support/private-redis.ts';

const { values: options } = parseArgs({
  options: {
    domains: { type: 'string', default: '1000' },
    parallel: { type: 'string', default: '16' },
    sample: { type: 'string', default: '6' },
    latency: { type: 'string' },
    cache: { type: 'string', default: 'redis' },
    'agent-heap': { type: 'string', default: String(agentHeapMb) },
  },
});
const n = Number(options.domains);
const parallel = Number(options.parallel);
const heapMb = Number(options['agent-heap']);
const sampleSize = Number(options.sample);
const latency = options.latency === undefined ? undefined : parseLatency(options.latency);
// The default profile's modules: those the reference has.
const modules = referenceModules.map((name) => name.toLowerCase());

if (options.cache !== 'redis' && options.cache !== 'none') throw new Error(`--cache takes redis or none, not ${options.cache}`);
const reason =
  (await labUnavailableReason()) ??
  (await postgresUnavailableReason()) ??
  (options.cache === 'redis' ? privateRedisUnavailableReason() : undefined);
if (reason !== undefined) {
  console.log(`bench:batch skipped: ${reason}`);
  process.exit(0);
}
const referenceMissing = referenceUnavailableReason();

const loadavg = async (): Promise<string> =>
  (await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
console.log(
  `bench:batch — ${n} domains of big:${n}, 2 agent processes × ${parallel} tests at once (heap limit ${heapMb} MB), PostgreSQL, ${options.cache === 'redis' ? 'answers about the parents shared through Redis' : 'no shared answers'}; ${latency ? `answers after ${describeLatency(latency)}` : 'no added latency'}; load at start ${await loadavg()}`,
);

// The world's children with the signed bogus ones, N in all (the first three generated ones left out).
const domains = bigWorldDomains(n)
  .slice(3)
  .map((child) => commandLineDomain(child.name));
const lab = await startLab([`big:${n}`], { latency });
const store = await createBatchDatabase('bench_batch');
const config = agentConfig(parallel);
const api = await startApi(store.url, Math.max(10_000, n));
const agents: AgentProcess[] = [];
let redis: PrivateRedis | undefined;
try {
  redis = options.cache === 'redis' ? await startPrivateRedis() : undefined;
  const emptyBytes = await store.size();
  agents.push(spawnAgent(lab, config.path, store.url, redis?.url, heapMb), spawnAgent(lab, config.path, store.url, redis?.url, heapMb));
  // Both agents are up (their heartbeats stored) before the clock starts.
  while (
    Number(
      (
        await store.database.db
          .selectFrom('dh_agent')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ) < 2
  )
    await delay(100);

  const cpuBefore = agents.map((a) => a.cpuSeconds() ?? 0);
  const machineBefore = readCpu();
  const begun = performance.now();
  const batchId = await api.call<number>('add_batch_job', { username: 'bench', api_key: 'bench-key', domains });
  const submittedMs = performance.now() - begun;
  let firstReadableMs: number | undefined;
  let atTenth: (number | undefined)[] | undefined;
  let progress: BatchProgress;
  for (;;) {
    progress = await api.call<BatchProgress>('get_batch_job_result', { batch_id: batchId });
    if (firstReadableMs === undefined && progress.finished_test_ids.length > 0) {
      await api.call('get_test_results', { id: progress.finished_test_ids[0], language: 'en' });
      firstReadableMs = performance.now() - begun;
    }
    if (atTenth === undefined && progress.nb_finished >= n / 10) atTenth = agents.map((a) => a.memory()?.rssMb);
    if (progress.nb_running === 0 && progress.nb_finished === n) break;
    if (agents.some((a) => a.child.exitCode !== null))
      throw new Error(`an agent exited:\n${agents.flatMap((a) => a.log.slice(-5)).join('\n')}`);
    await delay(500);
  }
  const ms = performance.now() - begun;
  const atEnd = agents.map((a) => a.memory());
  const byProcess = cpuBetween(machineBefore, readCpu());
  const agentCpu = agents.reduce((sum, a, i) => sum + (a.cpuSeconds() ?? NaN) - cpuBefore[i], 0);
  const perMinute = (n / ms) * 60_000;
  const bytes = (await store.size()) - emptyBytes;
  const tables = await sql<{ name: string; heap: string; indexes: string; toast: string }>`
    select c.relname as name, pg_relation_size(c.oid) as heap, pg_indexes_size(c.oid) as indexes,
           coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0) as toast
    from pg_class c join pg_namespace s on s.oid = c.relnamespace
    where s.nspname = 'public' and c.relkind = 'r' order by pg_total_relation_size(c.oid) desc limit 6`.execute(store.database.db);
  const redisInfo = await redis?.info();
  const died = (await testsEndedByBackend(store.database)).length;
  const byAgent = await store.database.db
    .selectFrom('dh_test')
    .select(['agent', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('agent')
    .execute();
  for (const agent of agents) agent.kill('SIGTERM');
  await Promise.all(agents.map((a) => a.exited));

  console.log(
    `batch: ${n} tests in ${(ms / 1000).toFixed(1)} s (add_batch_job answered in ${submittedMs.toFixed(0)} ms) = ${perMinute.toFixed(0)} tests/min; ${died} ended with a BACKEND entry; per agent ${byAgent.map((r) => r.n).join(' + ')}`,
  );
  console.log(`first result readable after ${((firstReadableMs ?? NaN) / 1000).toFixed(2)} s`);
  agents.forEach((_, i) => {
    const tenth = atTenth?.[i];
    const end = atEnd[i];
    console.log(
      `agent ${i + 1}: peak RSS ${end?.peakMb.toFixed(0) ?? '?'} MB; RSS at 10 % ${tenth?.toFixed(0) ?? '?'} MB, at 100 % ${end?.rssMb.toFixed(0) ?? '?'} MB (ratio ${tenth && end ? (end.rssMb / tenth).toFixed(2) : '?'}, goal ≤ 1.2)`,
    );
  });
  console.log(`CPU: the agents used ${agentCpu.toFixed(1)} s = ${((1000 * agentCpu) / n).toFixed(1)} ms per domain (user + system, /proc)`);
  const machineCpu = byProcess.reduce((sum, [, seconds]) => sum + seconds, 0);
  console.log(
    `CPU of every process on the machine: ${((1000 * machineCpu) / n).toFixed(1)} ms per domain (${(machineCpu / (ms / 1000)).toFixed(2)} cores); ${byProcess
      .slice(0, 8)
      .map(([name, seconds]) => `${name} ${((1000 * seconds) / n).toFixed(1)}`)
      .join('; ')}`,
  );
  console.log(
    `database: ${(bytes / 1e6).toFixed(1)} MB for ${n} tests = ${(bytes / n).toFixed(0)} bytes per stored test (pg_database_size, results, query logs and chains)`,
  );
  const perTest = (value: string): string => (Number(value) / n).toFixed(0);
  console.log(
    `  per test by table (heap + indexes + TOAST): ${tables.rows.map((t) => `${t.name} ${perTest(t.heap)} + ${perTest(t.indexes)} + ${perTest(t.toast)}`).join('; ')}`,
  );
  if (redisInfo !== undefined) {
    const keys = /keys=(\d+)/.exec(redisInfo.db0 ?? '')?.[1] ?? '0';
    console.log(
      `Redis: ${keys} answers kept in ${redisInfo.used_memory_human} (peak ${redisInfo.used_memory_peak_human}); ${redisInfo.keyspace_hits} found there, ${redisInfo.keyspace_misses} not (each agent also keeps its own in memory)`,
    );
  }

  if (referenceMissing !== undefined) {
    console.log(`reference not run: ${referenceMissing}`);
  } else {
    // Evenly spread over the batch, so broken children come in as often as they do in it.
    const sample = Array.from({ length: sampleSize }, (_, i) => domains[Math.floor(((i + 0.5) * domains.length) / sampleSize)]);
    const from = performance.now();
    let failed = 0;
    let referenceCpu = 0;
    for (const domain of sample) {
      // GNU time reports the CPU of the whole chroot'ed run on its last stderr line.
      const [command, ...rest] = [
        '/usr/bin/time',
        '-f',
        'cpu %U %S',
        ...referenceCommand(lab, [
          '--hints',
          '{hints}',
          '--raw',
          '--level',
          'INFO',
          '--no-progress',
          ...modules.flatMap((m) => ['--test', m]),
          domain,
        ]),
      ];
      const result = await lab.exec(command, rest, { timeoutMs: 10 * 60_000 });
      if (result.code !== 0) failed++;
      const [, user = 'NaN', system = 'NaN'] = /cpu (\S+) (\S+)\s*$/.exec(result.stderr) ?? [];
      referenceCpu += Number(user) + Number(system);
    }
    const referencePerMinute = (sample.length / (performance.now() - from)) * 60_000;
    const referenceCpuMs = (1000 * referenceCpu) / sample.length;
    console.log(
      `zonemaster-cli 8.0.1, one domain after another on ${sample.length} of them: ${referencePerMinute.toFixed(2)} tests/min, ${referenceCpuMs.toFixed(0)} ms CPU per domain${failed > 0 ? ` (${failed} runs failed)` : ''} (${sample.join(', ')})`,
    );
    console.log(
      `HEADLINE ratio tests/min, service batch : zonemaster-cli in sequence = ${(perMinute / referencePerMinute).toFixed(1)}x (goal ≥ 30x)`,
    );
    console.log(`HEADLINE CPU per domain, agents : zonemaster-cli = ${((1000 * agentCpu) / n / referenceCpuMs).toFixed(3)} (goal ≤ 0.1)`);
  }
  console.log(`load at end ${await loadavg()}`);
} finally {
  for (const agent of agents) if (agent.child.exitCode === null) agent.kill('SIGKILL');
  await api.stop();
  await redis?.stop();
  await store.drop();
  config.remove();
  await lab.stop();
}
