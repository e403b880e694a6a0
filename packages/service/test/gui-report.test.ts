// The GUI-style layout the lab test judges reports by: it must see what zonemaster-gui hides.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { guiGroups, untitledFindings, type GuiResult } from './gui-report.ts';

const r = (module: string, testcase: string, message: string): GuiResult => ({ module, testcase, level: 'INFO', message });

test('a finding outside any test case spelt UNSPECIFIED, or in a test case without a description, is hidden', () => {
  const before = {
    results: [
      r('SYSTEM', 'UNSPECIFIED', 'Engine 4.6'),
      r('BASIC', 'Basic01', 'Parent found'),
      r('DNSSEC', 'UNSPECIFIED', 'Not signed'),
      r('ZONE', 'Zone99', 'New'),
    ],
    testcase_descriptions: { Basic01: 'A parent zone delegates the domain' },
  };
  assert.deepEqual(untitledFindings(before), ['SYSTEM UNSPECIFIED: Engine 4.6', 'DNSSEC UNSPECIFIED: Not signed', 'ZONE Zone99: New']);
  assert.deepEqual(
    guiGroups(before).map((g) => [g.module, g.testcase, g.title, g.openByItself]),
    [
      ['SYSTEM', 'UNSPECIFIED', undefined, false],
      ['BASIC', 'Basic01', 'A parent zone delegates the domain', false],
      ['DNSSEC', 'UNSPECIFIED', undefined, false],
      ['ZONE', 'Zone99', undefined, false],
    ],
  );
});

test('Unspecified opens by itself with no header, and needs a description of its own too', () => {
  const results = [r('SYSTEM', 'Unspecified', 'Engine 9.0.1'), r('BASIC', 'Basic01', 'Parent found')];
  const titled = {
    results,
    testcase_descriptions: { Unspecified: 'Findings outside any test case', Basic01: 'A parent zone delegates the domain' },
  };
  assert.deepEqual(untitledFindings(titled), []);
  assert.deepEqual(guiGroups(titled)[0], {
    module: 'SYSTEM',
    testcase: 'Unspecified',
    title: undefined,
    openByItself: true,
    results: [results[0]],
  });
  assert.deepEqual(untitledFindings({ results, testcase_descriptions: { Basic01: 'x' } }), ['SYSTEM Unspecified: Engine 9.0.1']);
  assert.deepEqual(
    untitledFindings({ results: [r('A', 'toString', 'm')], testcase_descriptions: {} }),
    ['A toString: m'],
    'names on Object.prototype are no descriptions',
  );
});
