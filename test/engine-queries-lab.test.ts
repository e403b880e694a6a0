// What a whole run sends, read from dnscheck's saved runs in the lab: no identical question twice
// (same address, name, type, class, flags and transport), even where two server names share an
// address, and a server that never answers is asked nothing more on a transport once its SOA query
// without EDNS went unanswered there (engine 9.0's rule; until then its questions go one at a time).
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { labUnavailableReason, startLab, type Lab } from '@app/lab';
import { dnscheck } from './support/lab-engines.ts';

interface Exchange {
  server: string;
  qname: string;
  qtype: number;
  qclass: number;
  transport: 'udp' | 'tcp';
  flags: Record<string, unknown>;
  reply?: string;
  /** When it was sent, in ms since the process started. */
  at: number;
}

// Shared addresses, silent and half-silent servers, a lame one, a healthy signed zone, the domains
// whose runs send the most queries (Nameserver's quirks, disjoint and mismatched NS sets), and a
// server that never answers.
const domains = [
  'sharedip.test',
  'quirks.test',
  'silent.test',
  'notcp.test',
  'lame.test',
  'healthy.test',
  'nameserver-quirks.test',
  'disjoint.test',
  'mismatch.test',
  'silent-ns.test',
];
const scenarios = [
  'delegation-shared-address',
  'misbehaving-servers',
  'basic-silent',
  'no-tcp',
  'lame-delegation',
  'healthy-signed',
  'nameserver-quirks',
  'delegation-disjoint-ns',
  'ns-mismatch',
  resolve(import.meta.dirname, 'scenarios/silent-nameserver.yaml'),
];
/** The addresses of silent-ns.test's server that never answers. */
const neverAnswers = ['203.0.113.152', '2001:db8:1900::152'];
const addressOf = (e: Exchange): string => e.server.split('/').at(-1)!;

const skipReason = await labUnavailableReason();

describe('queries a run sends', { skip: skipReason ?? false }, () => {
  let lab: Lab;
  let dir: string;
  const runs = new Map<string, Exchange[]>();
  before(async () => {
    lab = await startLab(scenarios);
    dir = await mkdtemp(join(tmpdir(), 'dnscheck-runs-'));
    for (const domain of domains) {
      const file = join(dir, `${domain}.json`);
      const result = await lab.exec(process.execPath, [dnscheck, domain, '--hints', lab.hintsPath, '--save', file, '--no-progress'], {
        timeoutMs: 180_000,
      });
      assert.ok(result.code !== 1 && result.code !== 2, `dnscheck ${domain} failed (${result.code}): ${result.stderr.slice(-300)}`);
      runs.set(domain, (JSON.parse(await readFile(file, 'utf8')) as { exchanges: Exchange[] }).exchanges);
    }
  });
  after(async () => {
    await lab?.stop();
  });

  for (const domain of domains) {
    test(`${domain}: no identical question is sent twice`, () => {
      const exchanges = runs.get(domain)!;
      assert.ok(exchanges.length > 0);
      const counts = new Map<string, number>();
      for (const e of exchanges) {
        const address = addressOf(e);
        const flags = JSON.stringify(
          Object.fromEntries(
            Object.entries(e.flags)
              .filter(([, v]) => v !== undefined)
              .sort(),
          ),
        );
        // The name as sent: Nameserver08 and 09 ask in mixed case on purpose, a different question on the wire.
        const key = `${address} ${e.qname} ${e.qtype} ${e.qclass} ${e.transport} ${flags}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      assert.deepEqual(
        [...counts].filter(([, n]) => n > 1),
        [],
      );
    });
  }

  test('a server that never answers is asked nothing more on a transport after its plain SOA query there, in the whole run', () => {
    const exchanges = runs.get('silent-ns.test')!;
    const toSilent = exchanges.filter((e) => neverAnswers.includes(addressOf(e)));
    assert.deepEqual(
      toSilent.filter((e) => e.reply !== undefined),
      [],
      'the silent server answered something: the scenario drops too little',
    );
    const plainSoa = (e: Exchange): boolean => e.qtype === 6 && e.flags.edns === undefined && e.flags.dnssec !== true;
    for (const address of neverAnswers) {
      for (const transport of ['udp', 'tcp']) {
        const sent = toSilent.filter((e) => addressOf(e) === address && e.transport === transport).sort((x, y) => x.at - y.at);
        const first = sent.findIndex(plainSoa);
        assert.ok(first >= 0 || transport === 'tcp', `no plain SOA query reached ${address} over ${transport}`);
        if (first >= 0)
          assert.equal(first, sent.length - 1, `${address} over ${transport}: asked after its plain SOA query went unanswered`);
        // One at a time until then: a few waits, not one per question of the run.
        assert.ok(sent.length <= 4, `${address} over ${transport}: ${sent.length} questions`);
      }
    }
    // The run went on to ask the working servers everything else (so the silence was met early, not
    // because little was asked at all).
    assert.ok(exchanges.length - toSilent.length > 100, `only ${exchanges.length - toSilent.length} questions to the other servers`);
  });

  test('a server that drops NS queries is not taken for silent: as in 9.0.1, only a failed plain SOA query does that', () => {
    const toIt = runs
      .get('silent.test')!
      .filter((e) => addressOf(e) === '192.0.2.170' && e.transport === 'udp')
      .sort((a, b) => a.at - b.at);
    const unanswered = toIt.filter((e) => e.reply === undefined);
    assert.ok(unanswered.length > 0, 'the silent scenario has a server that does not answer');
    assert.deepEqual([...new Set(unanswered.map((e) => e.qtype))], [2], 'only its NS questions go unanswered');
    const firstMiss = toIt.indexOf(unanswered[0]);
    assert.ok(
      toIt.slice(firstMiss + 1).some((e) => e.reply !== undefined),
      'questions after the first dropped one are still asked and answered',
    );
  });
});
