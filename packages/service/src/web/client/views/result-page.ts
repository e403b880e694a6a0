// /result/<test id>: the progress bar while the test runs (test_progress, polled; a reload finds
// it again from the address), then the report.
import { h, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, RpcError } from '../api.ts';
import { useI18n } from '../i18n.ts';
import { useAsync } from '../use-async.ts';
import { asyncView, ErrorMessage, PageHeading } from './common.ts';
import { Report } from './report.ts';

export function ResultPage(props: { id: string }) {
  const { t, language } = useI18n();
  const [progress, setProgress] = useState<number | undefined>(undefined);
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const params = useAsync(() => api.testParams(props.id), [props.id]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let polls = 0;
    const poll = async () => {
      try {
        const value = await api.testProgress(props.id);
        if (stopped) return;
        setProgress(value);
        setFailure(undefined);
        // Quick at first, then every second and a half: most tests take a few seconds.
        if (value < 100) timer = setTimeout(() => void poll(), polls++ < 10 ? 500 : 1500);
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
  if (failure) return h('section', null, h(PageHeading, null, t('report_title', { domain: domain || props.id })), h(ErrorMessage, { error: failure }));
  const bar = h(ProgressBar, { domain, progress: progress ?? 0 });
  if (progress === 100) return h(FinishedReport, { id: props.id, language, whileLoading: bar });
  return bar;
}

function ProgressBar(props: { domain: string; progress: number }) {
  const { t, percent } = useI18n();
  return h('section', { class: 'progress-page' },
    h(PageHeading, null, t('testing_title', { domain: props.domain || '…' })),
    h('label', { for: 'test-progress', class: 'progress-label' }, t('progress')),
    h('progress', { id: 'test-progress', max: 100, value: props.progress }),
    h('p', { class: 'progress-value', 'aria-hidden': 'true' }, percent(props.progress)),
    props.progress === 0 && h('p', { class: 'hint' }, t('waiting_for_agent')));
}

/** The report once loaded; until then the bar stays on screen, full. */
function FinishedReport(props: { id: string; language: string; whileLoading: ComponentChildren }) {
  const results = useAsync(() => api.testResults(props.id, props.language), [props.id, props.language]);
  if (results.status === 'loading') return props.whileLoading;
  return asyncView(results, (report) => h(Report, { report }));
}
