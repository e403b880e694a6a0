// /history/<domain>: the domain's finished tests (get_test_history), delegated and undelegated,
// with their overall result; two of them can be picked for a comparison.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { api, type HistoryEntry } from '../api.ts';
import { useI18n } from '../i18n.ts';
import { Link, navigate } from '../navigation.ts';
import { paths } from '../../../shared/page-routes.ts';
import { useAsync } from '../use-async.ts';
import { asyncView, OverallBadge, PageHeading } from './common.ts';
import { ParameterLine } from './report.ts';
import { WatchSection } from './watch-section.ts';
import { DnssecTimeline } from './dnssec-timeline.ts';

const PAGE = 50;
type Filter = 'all' | 'delegated' | 'undelegated';

/** A run's parameters (get_test_params), so that runs with other settings are told apart. */
function RunParameters(props: { id: string }) {
  const params = useAsync(() => api.testParams(props.id), [props.id]);
  return params.status === 'done' ? h(ParameterLine, { params: params.value }) : null;
}

export function HistoryPage(props: { domain: string }) {
  const { t, dateTime } = useI18n();
  const [filter, setFilter] = useState<Filter>('all');
  const [limit, setLimit] = useState(PAGE);
  const [selected, setSelected] = useState<string[]>([]);
  // One more than shown tells whether there are more.
  const history = useAsync(() => api.testHistory(props.domain, filter, 0, limit + 1), [props.domain, filter, limit]);

  const toggle = (id: string) => setSelected(selected.includes(id) ? selected.filter((s) => s !== id) : [...selected.slice(-1), id]);
  const compare = (entries: HistoryEntry[]) => {
    // Older first: the comparison reads as what changed since the earlier test.
    const [from, to] = entries.filter((e) => selected.includes(e.id)).reverse();
    if (from && to) navigate(paths.compare(from.id, to.id));
  };

  return h(
    'section',
    { class: 'history' },
    h(PageHeading, null, t('history_title', { domain: props.domain })),
    h(
      'div',
      { class: 'inline-form' },
      h('label', { for: 'history-filter' }, t('show')),
      h(
        'select',
        { id: 'history-filter', value: filter, onChange: (e: Event) => setFilter((e.currentTarget as HTMLSelectElement).value as Filter) },
        (['all', 'delegated', 'undelegated'] as const).map((f) => h('option', { key: f, value: f }, t(`filter_${f}`))),
      ),
    ),
    asyncView(history, (entries: HistoryEntry[]) => {
      if (entries.length === 0) return h('p', null, t('no_history'));
      const rows = entries.slice(0, limit);
      return [
        h('p', { class: 'hint', id: 'compare-hint' }, t('compare_hint')),
        h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'history-table' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                h('th', { scope: 'col' }, t('compare')),
                h('th', { scope: 'col' }, t('date')),
                h('th', { scope: 'col' }, t('type')),
                h('th', { scope: 'col' }, t('result')),
                h('th', { scope: 'col' }, t('run_parameters')),
              ),
            ),
            h(
              'tbody',
              null,
              rows.map((entry) =>
                h(
                  'tr',
                  { key: entry.id },
                  h(
                    'td',
                    null,
                    h('input', {
                      type: 'checkbox',
                      checked: selected.includes(entry.id),
                      onChange: () => toggle(entry.id),
                      'aria-label': t('select_for_compare', { date: dateTime(entry.created_at) }),
                    }),
                  ),
                  h('td', null, h(Link, { href: paths.result(entry.id) }, dateTime(entry.created_at))),
                  h('td', null, entry.undelegated ? t('undelegated') : t('delegated')),
                  h('td', null, h(OverallBadge, { result: entry.overall_result })),
                  h('td', null, h(RunParameters, { id: entry.id })),
                ),
              ),
            ),
          ),
        ),
        h(
          'div',
          { class: 'buttons' },
          h(
            'button',
            {
              type: 'button',
              class: 'primary',
              disabled: selected.length !== 2,
              'aria-describedby': 'compare-hint',
              onClick: () => compare(entries),
            },
            t('compare_selected'),
          ),
          entries.length > limit &&
            h('button', { type: 'button', class: 'secondary', onClick: () => setLimit(limit + PAGE) }, t('show_more')),
        ),
      ];
    }),
    h(DnssecTimeline, { domain: props.domain }),
    h(WatchSection, { domain: props.domain }),
  );
}
