// Runs inside a lab: tests the given domains one after another, with answers shared through Redis
// when a URL is given ('-': none), and prints as JSON each domain's findings (without their times) and
// the questions about names outside it that went out to a name server (shared ones did not).
//   node shared-answers-probe.ts <hints file> <redis url | -> <key prefix> <domain>...
import { readFileSync } from 'node:fs';
import { readRootHints, runTestsWithChain, type Exchange } from '@app/engine';
import { redisSharedAnswers } from '@app/service';

const [hints = '', url = '-', prefix = '', ...domains] = process.argv.slice(2);
const rootHints = readRootHints(readFileSync(hints, 'utf8'));
const shared = url === '-' ? undefined : redisSharedAnswers(url, (line) => console.error(line), { prefix });
const out: Record<string, { findings: unknown[]; sentOutside: string[]; shared: number }> = {};
for (const domain of domains) {
  const exchanges: Exchange[] = [];
  const findings = await runTestsWithChain(
    { domain },
    { rootHints, onExchange: (e) => exchanges.push(e), ...(shared && { sharedAnswers: shared }) },
  );
  const zone = `${domain.replace(/\.$/, '')}.`.toLowerCase();
  const outside = exchanges.filter((e) => !(e.qname.toLowerCase() === zone || e.qname.toLowerCase().endsWith(`.${zone}`)));
  out[domain] = {
    findings: findings.map(({ timestamp: _, ...rest }) => rest),
    sentOutside: outside
      .filter((e) => e.shared !== true)
      .map((e) => `${e.server} ${e.qname} ${e.qtype}${e.flags.dnssec ? ' do' : ''} ${e.testcase ?? '-'}`),
    shared: outside.filter((e) => e.shared === true).length,
  };
}
await shared?.close();
process.stdout.write(JSON.stringify(out));
