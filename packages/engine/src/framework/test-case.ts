// What a test module and a test case look like to the runner: one declaration per test case.
import type { Finding, Message } from '../finding.ts';
import type { Profile } from '../profile/profile.ts';
import type { Zone } from '../zone/tested-zone.ts';

export interface TestContext {
  /** The domain as given, for checks on the name itself. */
  domain: string;
  zone: Zone;
  profile: Profile;
  signal: AbortSignal;
  /** Basic's findings, then those of the test cases it names in `after`: what this one may read. */
  earlier: readonly Finding[];
}

export type Precondition = { run: true } | { run: false; instead?: Message };

export interface TestCase {
  /** Reference identifier, e.g. 'Basic02'. */
  id: string;
  /** The specification this declaration implements. */
  spec: string;
  /** Every tag it may emit (TEST_CASE_START/END come from the runner). Anything else is a bug. */
  tags: readonly string[];
  /** Test cases of the same run whose findings this one reads; it starts once they have finished. */
  after?: readonly string[];
  /**
   * Its queries do not overtake those of the modules the reference runs before this one. The reference
   * runs modules one after another, and a server that went silent for one of them is not asked again
   * (on that transport) by any later one; a test case whose new questions would otherwise reach such a
   * server sets this, so it sees the same silence. It starts at once all the same: a query waits only
   * while the server could still be found silent (net/server-order.ts).
   */
  afterEarlierModules?: boolean;
  /**
   * It reads no findings and asks only questions of its own (probes), so it runs from the start of the
   * run, beside Basic, instead of after it; what it finds is kept only where Basic's gate lets the run go on.
   */
  besideBasic?: boolean;
  run(context: TestContext): Promise<Message[]>;
  /**
   * Lookups its run will make, made ahead of its turn from the start of the run (net/server-order.ts's
   * lookAhead), through a zone and resolver of their own: their answers wait in the run's cache, so the
   * chain of round trips it would start only after Basic and `after` is under way by then. Reads no
   * findings (`earlier` is empty); what it finds is not kept, and its failures are nobody's.
   */
  lookAhead?(context: TestContext): Promise<unknown>;
  /**
   * Whether the case runs, given the findings it may read. A case that does not run may leave a
   * message saying why (the reference does this for Basic03).
   */
  precondition?(context: TestContext): Precondition;
}

export interface TestModule {
  /** Upper case, as in profiles and findings: 'BASIC'. */
  name: string;
  /**
   * Each test case's queries do not overtake those of the module's earlier ones, as the reference runs
   * them one after another: a server that went silent in one (Nameserver04's plain SOA query, say) is not
   * asked again on that transport by a later one. As with `afterEarlierModules`, they all start at once.
   */
  inOrder?: boolean;
  testCases: readonly TestCase[];
}
