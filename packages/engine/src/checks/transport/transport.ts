// Transport: the encrypted transports of each name server address, DNS over TLS and over HTTPS, and
// whether they give the same zone as UDP and TCP. Beyond Zonemaster: only the `extended` profile runs
// it. DNS over QUIC is not tested: no name server Debian ships offers it (docs, packages/engine/README.md).
import type { TestModule } from '../../framework/test-case.ts';
import { transport03 } from './consistency.ts';
import { transport02 } from './doh.ts';
import { transport01 } from './dot.ts';

export const transport: TestModule = {
  name: 'TRANSPORT',
  testCases: [transport01, transport02, transport03],
};
