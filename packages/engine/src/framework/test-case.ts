// What a test module and a test case look like to the runner.
import type { Finding, Message } from '../finding.ts';
import type { Profile } from '../profile/profile.ts';
import type { Zone } from '../zone.ts';

export interface TestContext {
  /** The domain as given, for checks on the name itself. */
  domain: string;
  zone: Zone;
  profile: Profile;
  signal: AbortSignal;
  /** Findings of the run so far, for test cases that depend on earlier ones. */
  earlier: readonly Finding[];
}

export interface TestCase {
  /** Reference identifier, e.g. 'Basic02'. */
  id: string;
  /** The specification this function implements. */
  spec: string;
  run(context: TestContext): Promise<Message[]>;
  /**
   * Whether the case runs, given the findings so far. A case that does not run may leave a
   * message saying why (the reference does this for Basic03).
   */
  precondition?(context: TestContext): { run: true } | { run: false; instead?: Message };
}

export interface TestModule {
  /** Upper case, as in profiles and findings: 'BASIC'. */
  name: string;
  testCases: readonly TestCase[];
}
