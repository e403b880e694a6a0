// Agents share what they learned about the parents through Redis: in the lab's big.test., a sample
// of children (healthy and broken) is tested without the shared answers, then by two processes one
// after the other with them, as two agents of one batch. The findings must be the same, and the
// second process must not ask the parent's questions again. Redis is the machine's (127.0.0.1:6379),
// reached from inside the lab through a Unix socket this test forwards, under keys of its own.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bigWorldDomains, commandLineDomain, labUnavailableReason, startLab, type Lab } from '@app/lab';

const probe = join(import.meta.dirname, 'support/shared-answers-probe.ts');
const redisPort = 6379;
const children = 200;

async function redisUnavailableReason(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(redisPort, '127.0.0.1');
    socket.setTimeout(2000, () => socket.destroy(new Error('no answer within 2 s')));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(
        data.toString().startsWith('+PONG') ? undefined : `Redis at 127.0.0.1:${redisPort} answered PING with ${data.toString().trim()}`,
      );
    });
    socket.once('error', (error) => resolve(`Redis not reachable at 127.0.0.1:${redisPort} (${error.message})`));
  });
}

type ProbeOutput = Record<string, { findings: unknown[]; sentOutside: string[]; shared: number }>;

const skipReason = (await labUnavailableReason()) ?? (await redisUnavailableReason());

describe('answers shared between agents through Redis', { skip: skipReason ?? false, timeout: 10 * 60_000 }, () => {
  let lab: Lab;
  let forward: Server;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shared-answers-'));
    forward = createServer((client) => {
      const upstream = connect(redisPort, '127.0.0.1');
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => forward.listen(join(dir, 'redis.sock'), resolve));
    lab = await startLab([`big:${children}`]);
  });
  after(async () => {
    await lab?.stop();
    await new Promise((resolve) => forward?.close(resolve));
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const run = async (url: string, prefix: string, domains: string[]): Promise<ProbeOutput> => {
    const result = await lab.exec(process.execPath, [probe, lab.hintsPath, url, prefix, ...domains], { timeoutMs: 5 * 60_000 });
    assert.equal(result.code, 0, result.stderr.slice(-800));
    return JSON.parse(result.stdout) as ProbeOutput;
  };

  test('the same findings with and without them, and the parent asked once for both processes', async (t) => {
    const all = bigWorldDomains(children).map((child) => commandLineDomain(child.name));
    // Healthy ones and every broken kind: lame (17, 53), silent (31), DS unsigned (71), bogus signatures (the first three).
    const sample = [
      all[0],
      all[5],
      all[3 + 17],
      all[3 + 31],
      all[3 + 53],
      all[3 + 71],
      all[3 + 100],
      all[3 + 117],
      all[3 + 131],
      all[3 + 150],
    ];
    const prefix = `dh:answer:test:${process.pid}:${Date.now()}:`;
    const url = `unix://${join(dir, 'redis.sock')}`;

    const alone = await run('-', '', sample);
    const first = await run(url, prefix, sample.slice(0, 5));
    const second = await run(url, prefix, sample.slice(5));
    const shared = { ...first, ...second };
    // Nameserver08 and 09 ask in a new random mix of cases each run, and say so: compared in lower case.
    const lines = (findings: unknown[]) => findings.map((finding) => JSON.stringify(finding).toLowerCase());
    for (const domain of sample) {
      const [withShared, without] = [lines(shared[domain].findings), lines(alone[domain].findings)];
      const differing = {
        onlyWithShared: withShared.filter((line) => !without.includes(line)),
        onlyWithout: without.filter((line) => !withShared.includes(line)),
      };
      assert.deepEqual(differing, { onlyWithShared: [], onlyWithout: [] }, `${domain}: the same findings`);
      assert.deepEqual(withShared, without, `${domain}: the same findings in the same order`);
    }

    const sent = (output: ProbeOutput, domains: string[]) => domains.flatMap((domain) => output[domain].sentOutside);
    const later = sample.slice(5);
    t.diagnostic(
      `questions outside the tested zones sent for the last five: ${sent(alone, later).length} alone, ${sent(second, later).length} with shared answers (${later.reduce((n, d) => n + second[d].shared, 0)} answered from Redis)`,
    );
    // The parent's own questions (its SOA and NS, its servers' addresses, the keys above) were asked by
    // the first process only; what the Nameserver test cases ask of the zone's servers is asked afresh.
    const askedByFirst = new Set(sent(first, sample.slice(0, 5)));
    const askedAgain = sent(second, later).filter((question) => askedByFirst.has(question) && !/ Nameserver\d+$/.test(question));
    assert.deepEqual(askedAgain, [], 'no question about the parents the first process asked is asked again by the second');
    assert.ok(
      later.every((domain) => second[domain].shared > 0),
      'every later test took answers from Redis',
    );
    assert.ok(
      sent(second, later).length * 4 <= sent(alone, later).length,
      'at most a quarter of the questions about the parents still sent',
    );
  });
});
