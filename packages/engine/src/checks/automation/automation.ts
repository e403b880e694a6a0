// Automation: what DNSSEC automation between a child and its parent would do now — the DS RRset a
// parent should publish from CDS/CDNSKEY, RFC 9615 bootstrapping, CSYNC, and multi-signer agreement.
// Beyond Zonemaster: only the `extended` profile runs it.
import type { TestModule } from '../../framework/test-case.ts';
import { automation01 } from './automation01.ts';
import { automation02 } from './automation02.ts';
import { automation03 } from './automation03.ts';
import { automation04 } from './automation04.ts';

export const automation: TestModule = {
  name: 'AUTOMATION',
  testCases: [automation01, automation02, automation03, automation04],
};
