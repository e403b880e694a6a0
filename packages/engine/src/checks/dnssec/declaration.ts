// What every DNSSEC test case declares: its spec folder, and the gate.
import type { TestContext } from '../../framework/test-case.ts';

export const specs = 'zonemaster/zonemaster docs/specifications/tests/DNSSEC-TP';

// The reference runs DNSSEC07 and DNSSEC11 first, and nothing else of the module once DNSSEC07 finds the zone not signed.
export const gated = {
  after: ['DNSSEC07'],
  precondition: (context: TestContext): { run: boolean } => ({
    run: !context.earlier.some((f) => f.testcase === 'DNSSEC07' && f.tag === 'DS07_NOT_SIGNED'),
  }),
} as const;
