// Zone integrity: ZONEMD digests (RFC 8976) and whether the zone's names can be listed from its
// denial records (NSEC, NSEC3 and RFC 9276). Beyond Zonemaster: only the `extended` profile runs it.
import type { TestModule } from '../../framework/test-case.ts';
import { zoneIntegrity02 } from './walkability.ts';
import { zoneIntegrity01 } from './zonemd.ts';

export const zoneIntegrity: TestModule = {
  name: 'ZONE_INTEGRITY',
  testCases: [zoneIntegrity01, zoneIntegrity02],
};
