// /compare/<test id>/<test id>: the findings that appeared and went away between two tests.
import { h } from 'preact';
import { api } from '../api.ts';
import { useI18n } from '../i18n.ts';
import { Link } from '../navigation.ts';
import { compareReports, overallResult } from '../../../shared/report-model.ts';
import { paths } from '../../../shared/page-routes.ts';
import { useAsync } from '../use-async.ts';
import { asyncView, OverallBadge, PageHeading } from './common.ts';
import { FindingList } from './finding-list.ts';
import { kindOf, ParameterLine } from './report.ts';

export function ComparePage(props: { from: string; to: string }) {
  const { t, dateTime, language } = useI18n();
  const reports = useAsync(
    () => Promise.all([api.testResults(props.from, language), api.testResults(props.to, language)]),
    [props.from, props.to, language],
  );
  return h(
    'section',
    { class: 'compare' },
    asyncView(reports, (pair) => {
      // What changed since the earlier test, whichever order the address names them in.
      const [from, to] = [...pair].sort((a, b) => a.created_at.localeCompare(b.created_at)) as typeof pair;
      const diff = compareReports(from.results, to.results);
      const side = (report: typeof from) =>
        h(
          'span',
          { class: 'side' },
          h(Link, { href: paths.result(report.hash_id) }, dateTime(report.created_at)),
          ' ',
          h('span', { class: 'kind' }, kindOf(report, t)),
          ' ',
          h(OverallBadge, { result: overallResult(report.results) }),
          ' ',
          h(ParameterLine, { params: report.params }),
        );
      return [
        h(PageHeading, null, t('compare_title', { domain: to.params.domain })),
        from.params.domain !== to.params.domain &&
          h('p', { class: 'alert' }, t('different_domains', { from: from.params.domain, to: to.params.domain })),
        h(
          'dl',
          { class: 'compare-sides' },
          h('dt', null, t('compare_earlier')),
          h('dd', null, side(from)),
          h('dt', null, t('compare_later')),
          h('dd', null, side(to)),
        ),
        h(
          'section',
          { class: 'changes appeared', 'aria-labelledby': 'appeared-heading' },
          h('h2', { id: 'appeared-heading' }, t('appeared', { count: diff.appeared.length })),
          diff.appeared.length ? h(FindingList, { results: diff.appeared, withModule: true }) : h('p', null, t('no_changes')),
        ),
        h(
          'section',
          { class: 'changes disappeared', 'aria-labelledby': 'disappeared-heading' },
          h('h2', { id: 'disappeared-heading' }, t('disappeared', { count: diff.disappeared.length })),
          diff.disappeared.length ? h(FindingList, { results: diff.disappeared, withModule: true }) : h('p', null, t('no_changes')),
        ),
        h('p', null, t('unchanged', { count: diff.unchanged })),
      ];
    }),
  );
}
