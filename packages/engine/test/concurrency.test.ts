// The runner runs test cases at the same time: against a slow name server on loopback, the queries of
// two independent test cases are in flight together, an identical question from two test cases is
// sent once, and the findings still come out in plan order. (A server's first question goes out alone
// until it has answered, so a silent one is waited for once; in a run, Basic asks that one.)
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { after, before, test } from 'node:test';
import { decodeMessage, encodeMessage, Name, RRClass, RRType, type RecordInput } from '@app/dns';
import { runPlan } from '../src/run/run-tests.ts';
import type { PlannedTestCase } from '../src/run/registry.ts';
import type { TestCase } from '../src/framework/test-case.ts';

const address = '127.0.0.77';
const zone = Name.fromString('slow.test.');
const nsName = Name.fromString('ns1.slow.test.');
// How long the server sits on each query type before it answers.
const delayMs: Partial<Record<number, number>> = { [RRType.TXT]: 300, [RRType.MX]: 100 };

interface Seen {
  type: number;
  arrived: number;
  answered: number;
}
const seen: Seen[] = [];
let server: Socket | undefined;
let skip: string | false = false;

function answerFor(type: number): RecordInput[] {
  const base = { name: zone, class: RRClass.IN, ttl: 60 };
  if (type === RRType.NS) return [{ ...base, type, rdata: { target: nsName } }];
  if (type === RRType.TXT) return [{ ...base, type, rdata: { strings: [Buffer.from('slow')] } }];
  if (type === RRType.MX) return [{ ...base, type, rdata: { preference: 10, exchange: nsName } }];
  return [];
}

before(async () => {
  const socket = createSocket('udp4');
  socket.on('message', (bytes, peer) => {
    const query = decodeMessage(bytes);
    const question = query.question[0];
    const entry: Seen = { type: question.type, arrived: performance.now(), answered: 0 };
    seen.push(entry);
    const answer =
      question.name.equals(nsName) && question.type === RRType.A
        ? [{ name: nsName, type: RRType.A, class: RRClass.IN, ttl: 60, rdata: { address } }]
        : question.name.equals(zone)
          ? answerFor(question.type)
          : [];
    setTimeout(() => {
      entry.answered = performance.now();
      socket.send(encodeMessage({ id: query.id, qr: true, aa: true, question: query.question, answer }), peer.port, peer.address);
    }, delayMs[question.type] ?? 0);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(53, address, () => resolve());
    });
    server = socket;
  } catch (error) {
    socket.close();
    skip = `cannot listen on ${address} port 53 (${(error as NodeJS.ErrnoException).code ?? String(error)}); needs root, as the lab does`;
  }
});

after(() => server?.close());

function asking(id: string, type: number, after?: string[]): PlannedTestCase {
  const testCase: TestCase = {
    id,
    spec: 'the runner',
    tags: ['ANSWERED'],
    ...(after && { after }),
    async run({ zone: underTest }) {
      const [ns] = await underTest.glue();
      const response = await ns.query(underTest.name, type);
      return [{ tag: 'ANSWERED', args: { records: response?.answer.length ?? -1 } }];
    },
  };
  return { module: { name: id.toUpperCase(), testCases: [testCase] }, testCase, explicit: true };
}

test('two independent test cases query at the same time; an identical question goes out once', async (t) => {
  if (skip) return t.skip(skip);
  const first = ['First01'];
  const plan = [
    asking('First01', RRType.NS),
    asking('Slow01', RRType.TXT, first),
    asking('Quick01', RRType.MX, first),
    asking('Slow02', RRType.TXT, first),
  ];
  const findings = await runPlan({ domain: 'slow.test', nameservers: [{ ns: 'ns1.slow.test', ip: address }] }, plan, {
    rootHints: [{ name: 'a.root.invalid', address: '127.0.0.255' }],
  });

  const txt = seen.filter((s) => s.type === RRType.TXT);
  const mx = seen.filter((s) => s.type === RRType.MX);
  assert.equal(txt.length, 1, 'Slow01 and Slow02 ask the same question: it is sent once');
  assert.equal(mx.length, 1);
  assert.ok(
    mx[0].arrived < txt[0].answered && txt[0].arrived < mx[0].answered,
    `TXT in flight ${txt[0].arrived}-${txt[0].answered}, MX ${mx[0].arrived}-${mx[0].answered}: they must overlap`,
  );

  // Quick01 finished first, yet the findings follow the plan.
  const answered = findings.filter((f) => f.tag === 'ANSWERED');
  assert.deepEqual(
    answered.map((f) => f.testcase),
    ['First01', 'Slow01', 'Quick01', 'Slow02'],
  );
  assert.deepEqual(
    answered.map((f) => f.args.records),
    [1, 1, 1, 1],
  );
  assert.ok(!findings.some((f) => f.tag === 'MODULE_ERROR'));
});

test('a tag a test case does not declare is reported as a module error, and still shown', async (t) => {
  if (skip) return t.skip(skip);
  const sloppy = asking('Sloppy01', RRType.NS);
  const plan: PlannedTestCase[] = [{ ...sloppy, testCase: { ...sloppy.testCase, tags: [] } }];
  const findings = await runPlan({ domain: 'slow.test', nameservers: [{ ns: 'ns1.slow.test', ip: address }] }, plan, {
    rootHints: [{ name: 'a.root.invalid', address: '127.0.0.255' }],
  });
  assert.ok(findings.some((f) => f.testcase === 'Sloppy01' && f.tag === 'ANSWERED'));
  const error = findings.find((f) => f.tag === 'MODULE_ERROR');
  assert.match(String(error?.args.msg), /Sloppy01 emitted ANSWERED, a tag it does not declare/);
});
