// Tests completed per minute on DNS-lab domains: our agent (one process, then two) on PostgreSQL,
// against the reference's way in the same run: one zonemaster-cli process per test, with the same
// number running at once. Both run the test modules our engine has, so they do the same work.
// BENCH_PARALLEL (default 8) tests at once per agent, BENCH_SECONDS (default 20) per measurement.
// Memory per agent is its peak RSS (VmHWM) and its RSS at the end of the window.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { migrateToLatest, openDatabase, type Database } from '@app/database';
import { referenceModules } from '@app/engine';
import { commandLineDomain, execReference, startLab, type Lab } from '@app/lab';
import { sql } from 'kysely';
import { migrations, newTestRow, PRODUCT, type ServiceSchema, type TestParams } from '@app/service';
import { testsEndedByBackend } from '../../test/support/batch-lab.ts';

const parallel = Number(process.env.BENCH_PARALLEL ?? 8);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const scenarios = ['healthy-signed', 'single-nameserver', 'inconsistent-serials', 'bad-soa-timers', 'ns-mismatch', 'wrong-ds'];
const serviceBin = resolve(import.meta.dirname, '../../packages/service/bin/dns-service.ts');
// The agents run inside the lab's network namespace, where 127.0.0.1 is the lab's own loopback:
// they reach PostgreSQL through its Unix socket, which the namespace does not hide.
const socketDir = process.env.BENCH_PG_SOCKET_DIR ?? '/var/run/postgresql';
const adminUrl = `postgres://postgres@localhost/postgres?host=${socketDir}`;
// The default profile's modules: those the reference has.
const modules = referenceModules.map((name) => name.toLowerCase());

function params(domain: string): TestParams {
  return { domain, ipv4: true, ipv6: true, nameservers: [], ds_info: [], profile: 'default', priority: 10, queue: 0 };
}

async function finishedCount(database: Database<ServiceSchema>): Promise<number> {
  const row = await database.db
    .selectFrom('dh_test')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('progress', '=', 100)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Keeps enough tests waiting that the agents never run dry. */
async function keepQueueFull(database: Database<ServiceSchema>, domains: string[], stop: AbortSignal): Promise<void> {
  let next = 0;
  while (!stop.aborted) {
    const waiting = await database.db
      .selectFrom('dh_test')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('progress', '=', 0)
      .executeTakeFirstOrThrow();
    if (Number(waiting.n) < parallel * 20) {
      const rows = Array.from({ length: parallel * 20 }, () => newTestRow(params(domains[next++ % domains.length] ?? ''), null));
      await database.db.insertInto('dh_test').values(rows).execute();
    }
    await delay(200);
  }
}

interface Memory {
  peakMb: number;
  nowMb: number;
}

/** The agent's own pid: lab.spawn starts it through nsenter, which forks it as its only child. */
function agentPid(child: ChildProcess): number | undefined {
  try {
    const pid = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ')[0]);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function agentMemory(child: ChildProcess): Memory | undefined {
  try {
    const status = readFileSync(`/proc/${agentPid(child)}/status`, 'utf8');
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { peakMb: kb('VmHWM') / 1024, nowMb: kb('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

async function agentsRate(
  lab: Lab,
  database: Database<ServiceSchema>,
  url: string,
  agents: number,
): Promise<{ perMinute: number; died: number; memory: (Memory | undefined)[] }> {
  await database.db.deleteFrom('dh_test_result').execute();
  await database.db.deleteFrom('dh_test').execute();
  const dir = mkdtempSync(join(tmpdir(), 'bench-agent-'));
  const ini = join(dir, 'backend_config.ini');
  writeFileSync(
    ini,
    `[DB]\npolling_interval = 0.1\n\n[ZONEMASTER]\nnumber_of_processes_for_frontend_testing = ${parallel}\nnumber_of_processes_for_batch_testing = 0\n`,
  );
  const stop = new AbortController();
  const filling = keepQueueFull(database, lab.domains.map(commandLineDomain), stop.signal);
  const children: ChildProcess[] = [];
  try {
    for (let i = 0; i < agents; i++) {
      children.push(
        lab.spawn(process.execPath, [serviceBin, 'agent', '--config', ini, '--grace', '0'], {
          env: { DNS_SERVICE_DATABASE_URL: url },
          stdio: ['ignore', 'ignore', 'inherit'],
        }),
      );
    }
    // The window starts once the agents are up and finishing tests, so start-up is not counted.
    while ((await finishedCount(database)) < parallel * agents) await delay(50);
    const from = await finishedCount(database);
    const begun = performance.now();
    await delay(seconds * 1000);
    const done = (await finishedCount(database)) - from;
    const perMinute = (done / ((performance.now() - begun) / 1000)) * 60;
    const memory = children.map(agentMemory);
    const died = (await testsEndedByBackend(database)).length;
    return { perMinute, died, memory };
  } finally {
    stop.abort();
    await filling;
    // nsenter does not pass SIGTERM on: the agent itself is told to stop, and nsenter ends with it.
    for (const child of children) {
      const pid = agentPid(child);
      if (pid !== undefined) process.kill(pid, 'SIGTERM');
      else child.kill('SIGTERM');
    }
    await Promise.all(children.filter((child) => child.exitCode === null).map((child) => once(child, 'exit')));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The reference's way: a fresh zonemaster-cli process per test, `parallel` of them at a time, each
 * slot running BENCH_REFERENCE_ROUNDS (default 2) tests; the rate is tests done over the time all took.
 * A fixed count, not a window: under load one zonemaster-cli run can outlast any short window.
 */
async function referenceRate(lab: Lab): Promise<{ perMinute: number; failed: number }> {
  const domains = lab.domains.map(commandLineDomain);
  const rounds = Number(process.env.BENCH_REFERENCE_ROUNDS ?? 2);
  const begun = performance.now();
  let done = 0;
  let failed = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = 0; i < rounds; i++) {
      const domain = domains[next++ % domains.length] ?? '';
      const args = ['--hints', '{hints}', '--raw', '--level', 'INFO', '--no-progress', ...modules.flatMap((m) => ['--test', m]), domain];
      const result = await execReference(lab, args, { timeoutMs: 10 * 60_000 });
      if (result.code === 0) done++;
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return { perMinute: (done / ((performance.now() - begun) / 1000)) * 60, failed };
}

const lab = await startLab(scenarios);
const name = `bench_agent_${process.pid}`;
const admin = await openDatabase(adminUrl);
try {
  await sql.raw(`CREATE DATABASE ${name}`).execute(admin.db);
  const url = `postgres://postgres@localhost/${name}?host=${socketDir}`;
  const database = await openDatabase<ServiceSchema>(url);
  await migrateToLatest(database, PRODUCT, migrations);
  try {
    console.log(
      `bench:agent — ${lab.domains.length} lab domains, ${parallel} tests at once per agent, ${seconds} s per measurement, modules: ${modules.join(', ')}`,
    );
    const one = await agentsRate(lab, database, url, 1);
    const mb = (memory: (Memory | undefined)[]): string =>
      memory.map((m) => (m ? `${m.peakMb.toFixed(0)} MB peak, ${m.nowMb.toFixed(0)} MB at the end` : 'memory unknown')).join('; ');
    console.log(
      `our agent, 1 process:      ${one.perMinute.toFixed(0).padStart(6)} tests/min${one.died > 0 ? ` (${one.died} ended with a BACKEND entry)` : ''}   memory per agent: ${mb(one.memory)}`,
    );
    const two = await agentsRate(lab, database, url, 2);
    console.log(
      `our agent, 2 processes:    ${two.perMinute.toFixed(0).padStart(6)} tests/min${two.died > 0 ? ` (${two.died} ended with a BACKEND entry)` : ''}   memory per agent: ${mb(two.memory)}`,
    );
    const reference = await referenceRate(lab);
    console.log(
      `zonemaster-cli per test:   ${reference.perMinute.toFixed(1).padStart(6)} tests/min${reference.failed > 0 ? ` (${reference.failed} runs failed)` : ''}`,
    );
    console.log(`ratio, 1 agent : reference   ${(one.perMinute / reference.perMinute).toFixed(1)}x   (goal ≥ 10x)`);
    console.log(`ratio, 2 agents : reference  ${(two.perMinute / reference.perMinute).toFixed(1)}x`);
  } finally {
    await database.close();
  }
} finally {
  await sql.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).execute(admin.db);
  await admin.close();
  await lab.stop();
}
