// The Compliance module's results as a table, one entry per name server address with genreport's
// test names and result words: what `dnscheck --json` puts under `compliance`, the service's
// get_test_results carries and the web page draws. Made from the findings, so a saved or stored run
// gives the same table.
import type { Finding } from '../finding.ts';
import { protocolTests, signedTest } from '../checks/compliance/protocol-tests.ts';

export interface ComplianceEntry {
  ns: string;
  address: string;
  /** test name → result (`ok`, or genreport's words, comma separated). */
  tests: Record<string, string>;
}

// genreport's order, `signed` just before `ednstcp` as its report lines have it.
const order = protocolTests.flatMap((t) => (t.name === 'ednstcp' ? [signedTest, t.name] : [t.name]));
const rank = (name: string): number => order.indexOf(name);

export function complianceTable(findings: readonly Finding[]): ComplianceEntry[] {
  const entries = new Map<string, ComplianceEntry>();
  for (const f of findings) {
    if (f.module !== 'COMPLIANCE' || !['PROTOCOL_TEST_PASSED', 'PROTOCOL_FEATURE_ABSENT', 'PROTOCOL_TEST_FAILED'].includes(f.tag)) continue;
    const server = String(f.args.ns);
    const slash = server.indexOf('/');
    let entry = entries.get(server);
    if (!entry) {
      entry = { ns: server.slice(0, slash), address: server.slice(slash + 1), tests: {} };
      entries.set(server, entry);
    }
    entry.tests[String(f.args.test)] = String(f.args.result);
  }
  return [...entries.values()].map((e) => ({
    ...e,
    tests: Object.fromEntries(Object.entries(e.tests).sort(([a], [b]) => rank(a) - rank(b))),
  }));
}

/** The table as genreport prints it, a line per address: `zone. @address (ns.): dns=ok edns=ok ...`. */
export function complianceLines(zone: string, table: readonly ComplianceEntry[]): string[] {
  const dotted = (name: string): string => (name.endsWith('.') ? name : `${name}.`);
  return table.map(
    (e) =>
      `${dotted(zone)} @${e.address} (${dotted(e.ns)}): ${Object.entries(e.tests)
        .map(([test, result]) => `${test}=${result}`)
        .join(' ')}`,
  );
}
