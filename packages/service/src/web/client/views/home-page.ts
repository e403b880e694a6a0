// The start page: the test form, and a way to open a batch.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { useI18n } from '../i18n.ts';
import { navigate } from '../navigation.ts';
import { paths } from '../routes.ts';
import { PageHeading } from './common.ts';
import { TestForm } from './test-form.ts';

export function HomePage(props: { domain: string }) {
  const { t } = useI18n();
  return h('div', { class: 'home' },
    h('section', { 'aria-labelledby': 'page-heading' },
      h(PageHeading, null, t('form_title')),
      h('p', { class: 'intro' }, t('form_intro')),
      h(TestForm, { initialDomain: props.domain })),
    h(BatchOpener, null));
}

function BatchOpener() {
  const { t } = useI18n();
  const [id, setId] = useState('');
  return h('section', { class: 'batch-opener', 'aria-labelledby': 'batch-opener-heading' },
    h('h2', { id: 'batch-opener-heading' }, t('batch_open')),
    h('form', {
      class: 'inline-form',
      onSubmit: (e: Event) => {
        e.preventDefault();
        if (/^[1-9][0-9]{0,15}$/.test(id.trim())) navigate(paths.batch(id.trim()));
      },
    },
      h('label', { for: 'batch-id' }, t('batch_id')),
      h('input', { id: 'batch-id', type: 'text', inputMode: 'numeric', pattern: '[1-9][0-9]*', value: id, onInput: (e: Event) => setId((e.currentTarget as HTMLInputElement).value) }),
      h('button', { type: 'submit' }, t('open'))));
}
