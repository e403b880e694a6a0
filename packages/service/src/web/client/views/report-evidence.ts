// The evidence beside a report's texts: the queries a test case sent and what each server answered (loaded
// when opened), the DS records that would match the zone's keys, and a notice when a recent result was reused.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { api, type QueryView, type TestEvidence } from '../api.ts';
import { useI18n } from '../i18n.ts';

/** "Queries sent (12)", collapsed; opening it asks the service for that test case's part of the log. */
export function QueryLog(props: { testId: string; testcase: string; count: number }) {
  const { t, plural } = useI18n();
  const [queries, setQueries] = useState<QueryView[] | 'loading' | Error | undefined>(undefined);
  if (props.count === 0) return null;
  const load = (event: Event) => {
    if (!(event.currentTarget as HTMLDetailsElement).open || queries !== undefined) return;
    setQueries('loading');
    api
      .testQueries(props.testId, props.testcase)
      .then(setQueries, (error: unknown) => setQueries(error instanceof Error ? error : new Error(String(error))));
  };
  return h(
    'details',
    { class: 'query-log', onToggle: load },
    h('summary', null, plural('queries_sent', props.count)),
    queries === 'loading' || queries === undefined
      ? h('p', { class: 'hint' }, t('loading'))
      : queries instanceof Error
        ? h('p', { class: 'alert' }, t('error', { message: queries.message }))
        : h(
            'ol',
            { class: 'queries' },
            queries.map((q, i) => h(QueryItem, { key: i, query: q })),
          ),
  );
}

function QueryItem(props: { query: QueryView }) {
  const { t } = useI18n();
  const q = props.query;
  const sections = [
    ['answer', q.answer],
    ['authority', q.authority],
    ['additional', q.additional],
  ] as const;
  const outcome = q.malformed ? t('reply_malformed') : q.rcode === undefined ? t('no_reply') : [q.rcode, ...(q.flags ?? [])].join(' ');
  return h(
    'li',
    { class: 'query' },
    h(
      'p',
      { class: 'query-line' },
      h('code', null, `${q.qname} ${q.qtype}`),
      ' → ',
      h('code', null, q.server),
      h('span', { class: 'query-meta' }, ` ${q.transport.toUpperCase()}, ${q.ms} ms: `),
      h('strong', null, outcome),
    ),
    sections.some(([, records]) => (records?.length ?? 0) > 0)
      ? h(
          'pre',
          { class: 'records' },
          sections
            .flatMap(([name, records]) =>
              (records?.length ?? 0) > 0 ? [`;; ${t(`section_${name}`)}\n`, ...(records ?? []).map((r) => `${r}\n`)] : [],
            )
            .join(''),
        )
      : null,
  );
}

/** For a DS mismatch: the DS records that match the key-signing keys the zone's servers serve. */
export function DsSuggestion(props: { evidence: TestEvidence }) {
  const { t } = useI18n();
  const records = props.evidence.ds_suggestion;
  if (records.length === 0) return null;
  return h(
    'section',
    { class: 'ds-suggestion', 'aria-labelledby': 'ds-suggestion-heading' },
    h('h3', { id: 'ds-suggestion-heading' }, t('ds_suggestion_title')),
    h('p', null, t('ds_suggestion_hint')),
    h('pre', { class: 'records', tabIndex: 0 }, records.map((r) => r.record).join('\n')),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'ds-table' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['ds_keytag', 'ds_algorithm', 'ds_digtype', 'ds_digest'].map((key) => h('th', { key, scope: 'col' }, t(key as 'ds_keytag'))),
          ),
        ),
        h(
          'tbody',
          null,
          records.map((r) =>
            h(
              'tr',
              { key: `${r.keytag}-${r.digtype}` },
              h('td', null, r.keytag),
              h('td', null, r.algorithm),
              h('td', null, r.digtype),
              h('td', { class: 'digest' }, r.digest),
            ),
          ),
        ),
      ),
    ),
  );
}

/** When a request was answered with a recent result: says so, and from when a new run will be made. */
export function ReusedNotice(props: { createdAt: string; evidence: TestEvidence }) {
  const { t, dateTime } = useI18n();
  const fresh = Date.parse(props.evidence.reused_until) <= Date.now();
  return h(
    'p',
    { class: 'notice', role: 'status' },
    t('reused_notice', { date: dateTime(props.createdAt) }),
    ' ',
    fresh ? t('reused_fresh_now') : t('reused_until', { date: dateTime(props.evidence.reused_until) }),
  );
}
