// Small pieces every page uses: headings that take focus, loading and error states, level badges.
import { h, type ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import type { Level, OverallResult } from '../api.ts';
import { useI18n } from '../i18n.ts';
import type { AsyncState } from '../use-async.ts';

/** The page's h1, also the document title; after a page change it takes focus (see app.ts). */
export function PageHeading(props: { children: string }) {
  const { t } = useI18n();
  useEffect(() => {
    document.title = `${props.children} – ${t('app_name')}`;
  }, [props.children, t]);
  return h('h1', { tabIndex: -1, id: 'page-heading' }, props.children);
}

export function Loading() {
  const { t } = useI18n();
  return h('p', { class: 'loading', role: 'status' }, t('loading'));
}

export function ErrorMessage(props: { error: Error; retry?: () => void }) {
  const { t } = useI18n();
  return h(
    'div',
    { class: 'alert', role: 'alert' },
    h('p', null, t('error', { message: props.error.message })),
    props.retry && h('button', { type: 'button', onClick: props.retry }, t('retry')),
  );
}

/** `done(value)` once the state has a value; the loading or error state before. */
export function asyncView<T>(state: AsyncState<T> & { reload: () => void }, done: (value: T) => ComponentChildren): ComponentChildren {
  if (state.status === 'loading') return h(Loading, null);
  if (state.status === 'failed') return h(ErrorMessage, { error: state.error, retry: state.reload });
  return done(state.value);
}

export function LevelBadge(props: { level: Level; children?: ComponentChildren }) {
  const { t } = useI18n();
  return h('span', { class: `badge level-${props.level.toLowerCase()}` }, props.children ?? t(`level_${props.level}`));
}

export function OverallBadge(props: { result: OverallResult }) {
  const { t } = useI18n();
  return h('span', { class: `badge overall-${props.result}` }, t(`overall_${props.result}`));
}
