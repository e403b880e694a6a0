// /batch/<id>: how far a batch is (get_batch_job_result, refreshed while tests run) and its
// finished tests, each with its domain linked to its report and its overall result (both from get_test_results).
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, type OverallResult } from '../api.ts';
import { useI18n } from '../i18n.ts';
import { Link } from '../navigation.ts';
import { overallResult } from '../../../shared/report-model.ts';
import { paths } from '../../../shared/page-routes.ts';
import { useAsync } from '../use-async.ts';
import { asyncView, OverallBadge, PageHeading } from './common.ts';

const PAGE = 25;

export function BatchPage(props: { id: string }) {
  const { t } = useI18n();
  const status = useAsync(() => api.batchStatus(props.id), [props.id]);
  const running = status.status === 'done' && status.value.nb_running > 0;
  const { reload } = status;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(reload, 3000);
    return () => clearInterval(timer);
  }, [running, reload]);

  return h(
    'section',
    { class: 'batch' },
    h(PageHeading, null, t('batch_title', { id: props.id })),
    asyncView(status, (batch) => {
      const total = batch.nb_finished + batch.nb_running;
      return [
        h('label', { for: 'batch-progress', class: 'progress-label' }, t('batch_progress')),
        h('progress', { id: 'batch-progress', max: Math.max(total, 1), value: batch.nb_finished }),
        h('p', { role: 'status' }, t('batch_counts', { finished: batch.nb_finished, total, running: batch.nb_running })),
        h('h2', null, t('finished_tests')),
        batch.finished_test_ids.length === 0 ? h('p', null, t('no_finished_tests')) : h(FinishedTests, { ids: batch.finished_test_ids }),
      ];
    }),
  );
}

function FinishedTests(props: { ids: string[] }) {
  const { t, language } = useI18n();
  const [page, setPage] = useState(0);
  const pages = Math.ceil(props.ids.length / PAGE);
  const ids = props.ids.slice(page * PAGE, (page + 1) * PAGE);
  const tests = useAsync(
    () =>
      Promise.all(
        ids.map((id) =>
          api.testResults(id, language).then(
            (report): { domain: string; result?: OverallResult } => ({
              domain: report.params.domain,
              result: overallResult(report.results),
            }),
            (): { domain: string; result?: OverallResult } => ({ domain: '?' }),
          ),
        ),
      ),
    [ids.join(), language],
  );
  return h(
    'div',
    null,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        null,
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, t('domain')), h('th', { scope: 'col' }, t('overall_result')))),
        // The domain links to its report: a third column for the test id had no room on a phone.
        h(
          'tbody',
          null,
          ids.map((id, i) => {
            const test = tests.status === 'done' ? tests.value[i] : undefined;
            return h(
              'tr',
              { key: id },
              h('td', null, h(Link, { href: paths.result(id) }, test === undefined || test.domain === '?' ? id : test.domain)),
              h('td', null, test?.result === undefined ? (test === undefined ? '…' : '?') : h(OverallBadge, { result: test.result })),
            );
          }),
        ),
      ),
    ),
    pages > 1 &&
      h(
        'nav',
        { class: 'pager', 'aria-label': t('finished_tests') },
        h('button', { type: 'button', class: 'secondary', disabled: page === 0, onClick: () => setPage(page - 1) }, t('previous_page')),
        h('span', null, t('page_n_of', { n: page + 1, total: pages })),
        h('button', { type: 'button', class: 'secondary', disabled: page + 1 >= pages, onClick: () => setPage(page + 1) }, t('next_page')),
      ),
  );
}
