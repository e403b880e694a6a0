// /result/<test id>: the progress bar while the test runs (test_activity, polled; a reload finds
// it again from the address), saying how many test cases are done and which answers it waits for,
// then the report with its evidence. `?asked=<ms>` (set by the form) tells a reused recent result apart.
import { h, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, RpcError, type TestActivity } from '../api.ts';
import { useI18n } from '../i18n.ts';
import { useAsync } from '../use-async.ts';
import { asyncView, ErrorMessage, PageHeading } from './common.ts';
import { Report } from './report.ts';

/**
 * How much earlier than the request a test may have been made and still be this request's own: the service gives
 * whole seconds, and the browser's clock may differ a little from the service's.
 */
const CLOCK_SLACK_MS = 2000;

export function ResultPage(props: { id: string }) {
  const { t, language } = useI18n();
  const [asked] = useState(() => {
    const value = Number(new URLSearchParams(window.location.search).get('asked'));
    // The address stays the report's own: a reload or a shared link is no new request.
    if (value > 0) history.replaceState(history.state, '', window.location.pathname);
    return value > 0 ? value : undefined;
  });
  const [activity, setActivity] = useState<TestActivity | undefined>(undefined);
  const progress = activity?.progress;
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const params = useAsync(() => api.testParams(props.id), [props.id]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let polls = 0;
    const poll = async () => {
      try {
        const value = await api.testActivity(props.id);
        if (stopped) return;
        setActivity(value);
        setFailure(undefined);
        // Quick at first, then every second and a half: most tests take a few seconds.
        if (value.progress < 100) timer = setTimeout(() => void poll(), polls++ < 10 ? 500 : 1500);
      } catch (error) {
        if (stopped) return;
        // The service said no (an unknown test): that is final. A lost connection is tried again.
        if (error instanceof RpcError) setFailure(error);
        else timer = setTimeout(() => void poll(), 3000);
      }
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [props.id]);

  const domain = params.status === 'done' ? params.value.domain : '';
  if (failure)
    return h('section', null, h(PageHeading, null, t('report_title', { domain: domain || props.id })), h(ErrorMessage, { error: failure }));
  const bar = h(ProgressBar, { domain, activity: activity ?? { progress: 0 } });
  if (progress === 100) return h(FinishedReport, { id: props.id, language, whileLoading: bar, asked });
  return bar;
}

function ProgressBar(props: { domain: string; activity: TestActivity }) {
  const { t, percent, plural } = useI18n();
  const { activity } = props;
  const total = activity.testcases_total ?? 0;
  // The bar follows the test cases done; the last ones are often the ones waiting for a silent server.
  const value =
    activity.progress === 100
      ? 100
      : total > 0
        ? Math.min(99, Math.floor(((activity.testcases_done ?? 0) / total) * 100))
        : activity.progress;
  const waiting = activity.waiting_for ?? [];
  return h(
    'section',
    { class: 'progress-page' },
    h(PageHeading, null, t('testing_title', { domain: props.domain || '…' })),
    h('label', { for: 'test-progress', class: 'progress-label' }, t('progress')),
    h('progress', { id: 'test-progress', max: 100, value }),
    h('p', { class: 'progress-value', 'aria-hidden': 'true' }, percent(value)),
    activity.progress === 0 && h('p', { class: 'hint' }, t('waiting_for_agent')),
    h(
      'div',
      { class: 'activity', role: 'status', 'aria-live': 'polite' },
      total > 0 && activity.progress < 100
        ? h('p', { class: 'testcases-done' }, t('testcases_done', { done: activity.testcases_done ?? 0, total }))
        : null,
      waiting.length > 0
        ? h(
            'ul',
            { class: 'waiting' },
            waiting
              .slice(0, 3)
              .map((q, i) =>
                h(
                  'li',
                  { key: i },
                  t('waiting_for_answer', { server: q.server, qtype: q.qtype, qname: q.qname, seconds: q.seconds, testcase: q.testcase }),
                ),
              ),
            waiting.length + (activity.more_waiting ?? 0) > 3
              ? h('li', null, plural('waiting_more', waiting.length + (activity.more_waiting ?? 0) - 3))
              : null,
          )
        : null,
    ),
  );
}

/** The report and its evidence once loaded; until then the bar stays on screen, full. */
function FinishedReport(props: { id: string; language: string; whileLoading: ComponentChildren; asked: number | undefined }) {
  const results = useAsync(
    () => Promise.all([api.testResults(props.id, props.language), api.testEvidence(props.id).catch(() => undefined)]),
    [props.id, props.language],
  );
  if (results.status === 'loading') return props.whileLoading;
  return asyncView(results, ([report, evidence]) =>
    h(Report, {
      report,
      ...(evidence && { evidence }),
      reused: props.asked !== undefined && Date.parse(report.created_at) < props.asked - CLOCK_SLACK_MS,
    }),
  );
}
