// Compliance: how each name server address handles the queries of ISC's DNS compliance tester
// (genreport), by its test names and result words. Beyond Zonemaster: only the `extended` profile runs it.
import type { Message } from '../../finding.ts';
import type { TestCase, TestContext, TestModule } from '../../framework/test-case.ts';
import type { Nameserver, QueryFlags, SendOutcome } from '../../net/nameserver-client.ts';
import { cookies } from './cookies.ts';
import { digCommand, protocolTests, signedTest, wellKnownKey, type ProtocolGroup, type ProtocolTest } from './protocol-tests.ts';
import { onEachServer, serversAhead } from './servers.ts';
import { carriesRrsig, passes, verdict } from './verdict.ts';

const spec = 'ISC DNS compliance testing, genreport(1): TESTS; RFC 1035 §4.1.1, RFC 6891, RFC 7873';

/** The query flags that send the test's request as genreport does. */
export function probeFlags(test: ProtocolTest): QueryFlags {
  const edns = test.edns && {
    version: test.edns.version,
    udpSize: test.edns.udpSize,
    do: test.edns.do ?? false,
    flags: test.edns.flags ?? 0,
    options: (test.edns.options ?? []).map((o) => ({ code: o.code, data: o.data })),
  };
  return {
    tcp: test.tcp ?? false,
    dnssec: false,
    rd: test.rd ?? false,
    cd: test.cd ?? false,
    fallback: !test.ignoreTc,
    ...(edns && { edns }),
    header: {
      opcode: test.opcode ?? 0,
      aa: test.aa,
      tc: test.tc,
      ra: test.ra,
      z: test.z,
      ad: test.ad,
      noQuestion: (test.opcode ?? 0) !== 0,
      ...(test.tsig && { tsig: wellKnownKey }),
    },
  };
}

/** One finding per (address, test): passed, an optional feature absent, or failed with the dig command that shows it. */
function resultMessage(server: Nameserver, test: string, result: string, command?: string): Message {
  const ns = server.toString();
  if (passes(result)) return { tag: 'PROTOCOL_TEST_PASSED', args: { ns, test, result } };
  if (isAbsent(test, result)) return { tag: 'PROTOCOL_FEATURE_ABSENT', args: { ns, test, result, command: command ?? '' } };
  return { tag: 'PROTOCOL_TEST_FAILED', args: { ns, test, result, command: command ?? '' } };
}

async function runGroup(context: TestContext, groups: readonly ProtocolGroup[]): Promise<Message[]> {
  const { zone } = context;
  const tests = protocolTests.filter((t) => groups.includes(t.group));
  // Every server's every test at once, as genreport sends them; the probes' own caps per address and
  // per run (net/network.ts) bound the load.
  const probed = await onEachServer(context, (server) =>
    Promise.all(tests.map((test) => server.probe(zone.name, test.qtype, probeFlags(test)))),
  );
  const outcomes = probed.map((p) => p.result);
  const messages: Message[] = [];
  probed.forEach(({ server }, i) => {
    const zoneText = zone.nameText;
    let failed = 0;
    tests.forEach((test, j) => {
      const outcome: SendOutcome = outcomes[i][j] ?? { ms: 0, failure: 'failed' };
      if (test.name === 'ednstcp' && groups.includes('EDNS')) {
        const doIndex = tests.findIndex((t) => t.name === 'do');
        const doOutcome = outcomes[i][doIndex] ?? { ms: 0, failure: 'failed' };
        const result = `${verdict(tests[doIndex], doOutcome)}${carriesRrsig(doOutcome.message) ? ',yes' : ''}`;
        messages.push(resultMessage(server, signedTest, result, digCommand(tests[doIndex], zoneText, server.address)));
        if (!passes(result)) failed++;
      }
      const result = verdict(test, outcome);
      if (!passes(result) && !isAbsent(test.name, result)) failed++;
      messages.push(resultMessage(server, test.name, result, digCommand(test, zoneText, server.address)));
    });
    if (failed === 0) messages.push({ tag: 'PROTOCOL_ALL_OK', args: { ns: server.toString(), group: groups.join('+') } });
  });
  return messages;
}

const isAbsent = (test: string, result: string): boolean => protocolTests.find((t) => t.name === test)?.absent?.includes(result) ?? false;

const resultTags = ['PROTOCOL_TEST_PASSED', 'PROTOCOL_FEATURE_ABSENT', 'PROTOCOL_TEST_FAILED', 'PROTOCOL_ALL_OK'] as const;

export const compliance01: TestCase = {
  id: 'Compliance01',
  spec,
  tags: resultTags,
  besideBasic: true,
  lookAhead: serversAhead,
  run: (context) => runGroup(context, ['EDNS']),
};

export const compliance02: TestCase = {
  id: 'Compliance02',
  spec,
  tags: resultTags,
  besideBasic: true,
  lookAhead: serversAhead,
  run: (context) => runGroup(context, ['FULL', 'COMMON']),
};

export const compliance: TestModule = {
  name: 'COMPLIANCE',
  testCases: [compliance01, compliance02, cookies],
};
