// DNSSEC: is the chain of trust from the parent intact, and will it stay so? Tags, arguments and
// levels follow the reference engine 9.0 (specifications: docs/public/specifications/tests/DNSSEC-TP/
// in zonemaster/zonemaster). DNSSEC07 and DNSSEC11 run first; when DNSSEC07 finds the zone not signed
// (DS07_NOT_SIGNED) nothing else here runs. There is no DNSSEC12.
import type { TestModule } from '../../framework/test-case.ts';
import { dnssec01 } from './dnssec01.ts';
import { dnssec02 } from './dnssec02.ts';
import { dnssec03 } from './dnssec03.ts';
import { dnssec04 } from './dnssec04.ts';
import { dnssec05 } from './dnssec05.ts';
import { dnssec06 } from './dnssec06.ts';
import { dnssec07 } from './dnssec07.ts';
import { dnssec08, dnssec09 } from './dnssec08-09.ts';
import { dnssec10 } from './dnssec10.ts';
import { dnssec11 } from './dnssec11.ts';
import { dnssec13 } from './dnssec13.ts';
import { dnssec14 } from './dnssec14.ts';
import { dnssec15 } from './dnssec15.ts';
import { dnssec16, dnssec17 } from './dnssec16-17.ts';
import { dnssec18 } from './dnssec18.ts';

export const dnssec: TestModule = {
  name: 'DNSSEC',
  // In the reference's order: DNSSEC07 and DNSSEC11 first.
  testCases: [
    dnssec07,
    dnssec11,
    dnssec01,
    dnssec02,
    dnssec03,
    dnssec04,
    dnssec05,
    dnssec06,
    dnssec08,
    dnssec09,
    dnssec10,
    dnssec13,
    dnssec14,
    dnssec15,
    dnssec16,
    dnssec17,
    dnssec18,
  ],
};
