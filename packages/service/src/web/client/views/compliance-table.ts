// The Compliance module's results (profile extended), DNS Flag Day style: a table per name server
// address with each test of ISC's DNS compliance tester and its result, and for a failing test the
// dig command that shows it (from the finding's arguments, which get_test_evidence gives). A result
// the engine words as an optional feature the server lacks (PROTOCOL_FEATURE_ABSENT) is no failure.
import { h } from 'preact';
import type { ComplianceEntry, TestEvidence } from '../api.ts';
import { useI18n } from '../i18n.ts';

const passes = (result: string): boolean => result === 'ok' || result.startsWith('ok,');

/** The finding about a test that did not pass at that server, with its dig command. */
function findingFor(evidence: TestEvidence | undefined, entry: ComplianceEntry, test: string): { absent: boolean; command?: string } {
  const server = `${entry.ns}/${entry.address}`;
  const finding = evidence?.results.find(
    (r) => (r.tag === 'PROTOCOL_TEST_FAILED' || r.tag === 'PROTOCOL_FEATURE_ABSENT') && r.args.ns === server && r.args.test === test,
  );
  const command = typeof finding?.args.command === 'string' && finding.args.command !== '' ? finding.args.command : undefined;
  return { absent: finding?.tag === 'PROTOCOL_FEATURE_ABSENT', ...(command !== undefined && { command }) };
}

export function ComplianceTables(props: { compliance: ComplianceEntry[]; evidence?: TestEvidence }) {
  const { t } = useI18n();
  return h(
    'section',
    { class: 'compliance', 'aria-labelledby': 'compliance-heading' },
    h('h2', { id: 'compliance-heading' }, t('compliance_title'), ' ', h('span', { class: 'beyond' }, t('beyond_zonemaster'))),
    h('p', { class: 'hint' }, t('compliance_intro')),
    props.compliance.map((entry) => {
      const tests = Object.entries(entry.tests).map(([test, result]) => ({
        test,
        result,
        ...(passes(result) ? { absent: false } : findingFor(props.evidence, entry, test)),
      }));
      const failing = tests.filter((row) => !passes(row.result) && !row.absent).length;
      const id = `compliance-${entry.ns}-${entry.address}`.replace(/[^a-zA-Z0-9-]+/g, '-');
      return h(
        'details',
        { key: id, class: `compliance-server ${failing === 0 ? 'all-ok' : 'has-failures'}`, open: failing > 0 },
        h(
          'summary',
          { id },
          h('strong', null, entry.ns),
          ` ${entry.address} — `,
          failing === 0 ? t('compliance_all_ok') : t('compliance_failing', { count: failing, total: tests.length }),
        ),
        h(
          'table',
          { class: 'compliance-table', 'aria-labelledby': id },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              h('th', { scope: 'col' }, t('compliance_test')),
              h('th', { scope: 'col' }, t('compliance_result')),
              h('th', { scope: 'col' }, t('compliance_reproduce')),
            ),
          ),
          h(
            'tbody',
            null,
            tests.map(({ test, result, absent, command }) => {
              const state = passes(result) ? 'pass' : absent ? 'absent' : 'fail';
              return h(
                'tr',
                { key: test, class: state },
                h('th', { scope: 'row' }, h('code', null, test)),
                h(
                  'td',
                  null,
                  h(
                    'span',
                    { class: `result-${state}`, 'aria-hidden': 'true' },
                    state === 'pass' ? '✓ ' : state === 'absent' ? '– ' : '✗ ',
                  ),
                  result,
                  state === 'absent' ? ` (${t('compliance_absent')})` : null,
                ),
                h('td', null, command === undefined ? null : h('code', { class: 'dig' }, command)),
              );
            }),
          ),
        ),
      );
    }),
  );
}
