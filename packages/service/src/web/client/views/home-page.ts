// The start page: the test form, and a way to open a batch.
import { h } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { useI18n } from '../i18n.ts';
import { navigate } from '../navigation.ts';
import { paths } from '../../../shared/page-routes.ts';
import { PageHeading } from './common.ts';
import { TestForm } from './test-form.ts';

export function HomePage(props: { domain: string }) {
  const { t } = useI18n();
  return h(
    'div',
    { class: 'home' },
    h(
      'section',
      { 'aria-labelledby': 'page-heading' },
      h(PageHeading, null, t('form_title')),
      h('p', { class: 'intro' }, t('form_intro')),
      h(TestForm, { initialDomain: props.domain }),
    ),
    h(BatchOpener, null),
  );
}

function BatchOpener() {
  const { t } = useI18n();
  const [id, setId] = useState('');
  const [invalid, setInvalid] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  return h(
    'section',
    { class: 'batch-opener', 'aria-labelledby': 'batch-opener-heading' },
    h('h2', { id: 'batch-opener-heading' }, t('batch_open')),
    // Said, not ignored: an id that is no number used to leave the button doing nothing.
    invalid && h('p', { class: 'field-error', id: 'batch-id-error' }, t('batch_id_invalid')),
    h(
      'form',
      {
        class: 'inline-form',
        noValidate: true,
        onSubmit: (e: Event) => {
          e.preventDefault();
          const valid = /^[1-9][0-9]{0,15}$/.test(id.trim());
          setInvalid(!valid);
          if (valid) navigate(paths.batch(id.trim()));
          else input.current?.focus();
        },
      },
      h('label', { for: 'batch-id' }, t('batch_id')),
      h('input', {
        id: 'batch-id',
        ref: input,
        type: 'text',
        inputMode: 'numeric',
        value: id,
        onInput: (e: Event) => setId((e.currentTarget as HTMLInputElement).value),
        'aria-invalid': invalid ? 'true' : undefined,
        'aria-describedby': invalid ? 'batch-id-error' : undefined,
      }),
      h('button', { type: 'submit' }, t('open')),
    ),
  );
}
