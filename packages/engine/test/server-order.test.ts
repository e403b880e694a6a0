// Test cases that the reference runs one after another (a module declared `inOrder`) run at the same
// time here, yet each still gets what the reference's order gives it: against a server that answers
// plain SOA queries the later one does not wait for the earlier one; against a server that drops them
// the earlier one's SOA query marks the server silent first, and the later one's question is never sent.
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { after, before, test } from 'node:test';
import { decodeMessage, encodeMessage, Name, RRClass, RRType, type RecordInput } from '@app/dns';
import { runPlan } from '../src/run/run-tests.ts';
import type { PlannedTestCase } from '../src/run/registry.ts';
import type { TestCase, TestModule } from '../src/framework/test-case.ts';
import { defaultProfile } from '../src/profile/profile.ts';

interface Seen {
  type: number;
  arrived: number;
  answered: number;
}

/** A server on a loopback address: `slowMs` per query type, and the types it never answers. */
interface Lab {
  address: string;
  zone: Name;
  seen: Seen[];
  socket?: Socket;
}

const answering: Lab = { address: '127.0.0.78', zone: Name.fromString('answers.test.'), seen: [] };
const dropping: Lab = { address: '127.0.0.79', zone: Name.fromString('drops.test.'), seen: [] };
const slowMs: Partial<Record<number, number>> = { [RRType.TXT]: 200 };
let skip: string | false = false;

async function listen(lab: Lab, drops: readonly number[]): Promise<void> {
  const socket = createSocket('udp4');
  socket.on('message', (bytes, peer) => {
    const query = decodeMessage(bytes);
    const question = query.question[0];
    const entry: Seen = { type: question.type, arrived: performance.now(), answered: 0 };
    lab.seen.push(entry);
    if (drops.includes(question.type)) return;
    const answer: RecordInput[] =
      question.type === RRType.TXT
        ? [{ name: lab.zone, type: RRType.TXT, class: RRClass.IN, ttl: 60, rdata: { strings: [Buffer.from('x')] } }]
        : [];
    setTimeout(() => {
      entry.answered = performance.now();
      socket.send(encodeMessage({ id: query.id, qr: true, aa: true, question: query.question, answer }), peer.port, peer.address);
    }, slowMs[question.type] ?? 0);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(53, lab.address, () => resolve());
  });
  lab.socket = socket;
}

before(async () => {
  try {
    await listen(answering, []);
    await listen(dropping, [RRType.SOA]);
  } catch (error) {
    skip = `cannot listen on port 53 of 127.0.0.78/79 (${(error as NodeJS.ErrnoException).code ?? String(error)}); needs root, as the lab does`;
  }
});

after(() => {
  answering.socket?.close();
  dropping.socket?.close();
});

function asking(id: string, types: number[]): TestCase {
  return {
    id,
    spec: 'the runner',
    tags: ['ANSWERED'],
    async run({ zone }) {
      const [ns] = await zone.glue();
      const messages = [];
      for (const type of types) {
        const response = await ns.query(zone.name, type);
        messages.push({ tag: 'ANSWERED', args: { type, answered: response !== undefined } });
      }
      return messages;
    },
  };
}

async function run(lab: Lab, first: TestCase, second: TestCase) {
  const module: TestModule = { name: 'ORDERED', inOrder: true, testCases: [first, second] };
  const plan: PlannedTestCase[] = module.testCases.map((testCase) => ({ module, testCase, explicit: true }));
  const profile = defaultProfile();
  profile.resolver.defaults = { ...profile.resolver.defaults, timeout: 0.6, retry: 1, retrans: 0.6 };
  const findings = await runPlan(
    { domain: lab.zone.toString(), nameservers: [{ ns: `ns1.${lab.zone.toString()}`, ip: lab.address }], profile },
    plan,
    {
      rootHints: [{ name: 'a.root.invalid', address: '127.0.0.255' }],
    },
  );
  return findings.filter((f) => f.tag === 'ANSWERED').map((f) => `${f.testcase} ${String(f.args.type)} ${String(f.args.answered)}`);
}

test('where a server answers plain SOA queries, a later test case does not wait for an earlier one', async (t) => {
  if (skip) return t.skip(skip);
  const findings = await run(answering, asking('First01', [RRType.TXT]), asking('Second01', [RRType.MX]));
  assert.deepEqual(findings, [`First01 ${RRType.TXT} true`, `Second01 ${RRType.MX} true`]);
  const txt = answering.seen.find((s) => s.type === RRType.TXT)!;
  const mx = answering.seen.find((s) => s.type === RRType.MX)!;
  assert.ok(mx.arrived < txt.answered, `MX arrived at ${mx.arrived}, after the TXT it must overlap was answered at ${txt.answered}`);
  assert.equal(answering.seen.filter((s) => s.type === RRType.SOA).length, 1, 'one plain SOA query decides the server');
});

test('where a server drops plain SOA queries, the earlier test case marks it silent before the later one asks', async (t) => {
  if (skip) return t.skip(skip);
  const findings = await run(dropping, asking('First01', [RRType.TXT, RRType.SOA]), asking('Second01', [RRType.MX]));
  // In the reference's order: TXT answered, the SOA query unanswered marks the server silent, MX is never sent.
  assert.deepEqual(findings, [`First01 ${RRType.TXT} true`, `First01 ${RRType.SOA} false`, `Second01 ${RRType.MX} false`]);
  assert.equal(
    dropping.seen.filter((s) => s.type === RRType.MX).length,
    0,
    'the later test case asks nothing of a server found silent before it',
  );
});

/** Asks `types` in its run, which waits for First01's findings, and `ahead` ahead of its turn (`lookAhead`). */
function askingAhead(id: string, types: number[], ahead: number[]): TestCase {
  return {
    ...asking(id, types),
    after: ['First01'],
    async lookAhead({ zone }) {
      const [ns] = await zone.glue();
      await Promise.all(ahead.map((type) => ns.query(zone.name, type)));
    },
  };
}

test("a later test case's lookups ahead of its turn go while the earlier one runs, and its run finds their answers", async (t) => {
  if (skip) return t.skip(skip);
  const before = answering.seen.length;
  const findings = await run(answering, asking('First01', [RRType.TXT]), askingAhead('Second01', [RRType.A], [RRType.A]));
  assert.deepEqual(findings, [`First01 ${RRType.TXT} true`, `Second01 ${RRType.A} true`]);
  const seen = answering.seen.slice(before);
  const txt = seen.find((s) => s.type === RRType.TXT)!;
  const a = seen.filter((s) => s.type === RRType.A);
  assert.equal(a.length, 1, 'asked once: the run took the answer the lookup ahead got');
  assert.ok(a[0].arrived < txt.answered, `A arrived at ${a[0].arrived}, after the earlier test case's TXT was answered at ${txt.answered}`);
});

test('ahead of its turn, a lookup still waits for a server the earlier test case may find silent', async (t) => {
  if (skip) return t.skip(skip);
  const before = dropping.seen.length;
  const findings = await run(dropping, asking('First01', [RRType.TXT, RRType.SOA]), askingAhead('Second01', [RRType.A], [RRType.A]));
  assert.deepEqual(findings, [`First01 ${RRType.TXT} true`, `First01 ${RRType.SOA} false`, `Second01 ${RRType.A} false`]);
  assert.equal(
    dropping.seen.slice(before).filter((s) => s.type === RRType.A).length,
    0,
    'nothing is asked of a server found silent before its turn',
  );
});
