// `dns-service agent` as an operator runs it: from a config file, announcing itself, leaving on SIGTERM.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { writeConfigFixture } from './config-fixture.ts';
import { scrape } from './prometheus-scrape.ts';
import { agentHeapMb, heapAdvice } from '../src/agent/heap-limit.ts';

const bin = new URL('../bin/dns-service.ts', import.meta.url).pathname;

test('agent --config FILE serves its queue with the configured capacity and exits cleanly on SIGTERM', async () => {
  const config = writeConfigFixture(
    'lock_on_queue = 3\nnumber_of_processes_for_frontend_testing = 4\nnumber_of_processes_for_batch_testing = 2\n',
  );
  const child = spawn(process.execPath, [bin, 'agent', '--config', config, '--grace', '1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const lines = createInterface({ input: child.stdout });
    const [line] = (await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => ['exited'])])) as [string];
    assert.match(line, /^dns-service: agent \S+ on queue 3, up to 6 tests at once \(SQLite file /);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('agent with a bad grace period names the usage and exits 2', async () => {
  const child = spawn(process.execPath, [bin, 'agent', '--grace', 'soon'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 2);
  assert.match(stderr, /dns-service agent \[--config FILE\]/);
});

test('agent --metrics HOST:PORT serves its own /metrics and /readyz, behind the Host check', async () => {
  const config = writeConfigFixture();
  const child = spawn(process.execPath, [bin, 'agent', '--config', config, '--grace', '1', '--metrics', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const lines = createInterface({ input: child.stdout });
    let base = '';
    for await (const line of lines) {
      base = /agent metrics on (http:\/\/\S+)\/metrics$/.exec(line)?.[1] ?? '';
      if (base !== '') break;
    }
    const metrics = await scrape(base);
    assert.equal(metrics.value('dns_health_agents_alive'), 1, 'its own heartbeat');
    assert.ok(metrics.names.includes('dns_health_dns_queries_total'));
    assert.equal((await fetch(new URL('/readyz', base))).status, 200);
    const { port } = new URL(base);
    const rebound = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/metrics', headers: { host: `attacker.example:${port}` } }, (res) =>
        resolve(res.statusCode ?? 0),
      )
        .on('error', reject)
        .end();
    });
    assert.equal(rebound, 403);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('an agent started with a heap limit of its own says so; one left at a default of gigabytes is told how to bound it', async () => {
  assert.equal(heapAdvice(agentHeapMb), undefined);
  assert.match(heapAdvice(4144) ?? '', /--max-old-space-size=256/);
  const config = writeConfigFixture('number_of_processes_for_batch_testing = 2\n');
  const child = spawn(process.execPath, [`--max-old-space-size=${agentHeapMb}`, bin, 'agent', '--config', config, '--grace', '1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const errors: string[] = [];
    createInterface({ input: child.stderr }).on('line', (line) => errors.push(line));
    const lines = createInterface({ input: child.stdout });
    const [line] = (await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => ['exited'])])) as [string];
    const heapMb = Number(/heap at most (\d+) MB$/.exec(line)?.[1]);
    // The old space given, plus the young generation's semi-spaces.
    assert.ok(heapMb >= agentHeapMb && heapMb < 1024, line);
    child.kill('SIGTERM');
    await once(child, 'exit');
    assert.deepEqual(
      errors.filter((e) => e.includes('max-old-space-size')),
      [],
    );
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
