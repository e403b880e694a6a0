// On /history/<domain>: the domain's watches (scheduled re-tests with alerts) of an API user, to see,
// add and remove. The user and key stay in this page's memory only.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { api, RpcError, type Credentials, type Watch } from '../api.ts';
import { useI18n } from '../i18n.ts';
import { Field } from './field.ts';

const FIELD_OF_PATH: Record<string, string> = {
  '/username': 'watch-username',
  '/api_key': 'watch-api-key',
  '/schedule': 'watch-schedule',
  '/webhook_url': 'watch-webhook',
  '/email': 'watch-email',
};

export function WatchSection(props: { domain: string }) {
  const { t, dateTime, language } = useI18n();
  const [credentials, setCredentials] = useState<Credentials>({ username: '', api_key: '' });
  const [form, setForm] = useState({ schedule: 'every 6h', webhook: '', email: '' });
  const [watches, setWatches] = useState<Watch[] | undefined>(undefined);
  const [errors, setErrors] = useState<{ fields: Map<string, string>; other: string[] }>({ fields: new Map(), other: [] });
  const [notice, setNotice] = useState<string[]>([]);

  const refused = (error: unknown) => {
    const issues = error instanceof RpcError ? error.validationErrors : [];
    const fields = new Map<string, string>();
    const other: string[] = issues.length === 0 ? [error instanceof Error ? error.message : String(error)] : [];
    for (const { path, message } of issues) {
      const id = FIELD_OF_PATH[path];
      if (id === undefined) other.push(`${t('label_colon', { label: path })} ${message}`);
      else fields.set(id, message);
    }
    setErrors({ fields, other });
  };
  const attempt = async (action: () => Promise<void>) => {
    setErrors({ fields: new Map(), other: [] });
    try {
      await action();
    } catch (error) {
      refused(error);
    }
  };
  const reload = async () => setWatches((await api.watchList(credentials, props.domain)).watches);
  const show = (event: Event) => {
    event.preventDefault();
    setNotice([]);
    void attempt(reload);
  };
  const add = (event: Event) => {
    event.preventDefault();
    void attempt(async () => {
      const added = await api.watchAdd(credentials, {
        domain: props.domain,
        schedule: form.schedule.trim(),
        language,
        ...(form.webhook.trim() !== '' && { webhook_url: form.webhook.trim() }),
        ...(form.email.trim() !== '' && { email: form.email.trim() }),
      });
      setNotice([
        t('watch_added', { date: dateTime(added.next_run_at) }),
        ...(added.webhook_secret === undefined ? [] : [t('watch_secret', { secret: added.webhook_secret })]),
      ]);
      await reload();
    });
  };
  const remove = (watch: Watch) =>
    void attempt(async () => {
      await api.watchRemove(credentials, watch.watch_id);
      setNotice([]);
      await reload();
    });
  const field = (
    id: string,
    label: string,
    value: string,
    onInput: (value: string) => void,
    extra: Partial<Parameters<typeof Field>[0]> = {},
  ) => h(Field, { id, label, value, onInput, error: errors.fields.get(id), ...extra });

  return h(
    'section',
    { class: 'watches', 'aria-labelledby': 'watch-heading' },
    h('h2', { id: 'watch-heading' }, t('watch_title')),
    h('p', { class: 'hint' }, t('watch_intro')),
    h(
      'form',
      { onSubmit: show, class: 'watch-credentials' },
      field('watch-username', t('watch_username'), credentials.username, (username) => setCredentials({ ...credentials, username }), {
        autoComplete: 'username',
      }),
      field('watch-api-key', t('watch_api_key'), credentials.api_key, (api_key) => setCredentials({ ...credentials, api_key }), {
        type: 'password',
        autoComplete: 'current-password',
      }),
      h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'secondary' }, t('watch_show'))),
    ),
    errors.other.length > 0 &&
      h(
        'div',
        { class: 'alert', role: 'alert' },
        errors.other.map((text) => h('p', { key: text }, text)),
      ),
    notice.length > 0 &&
      h(
        'div',
        { class: 'notice', role: 'status' },
        notice.map((text) => h('p', { key: text }, text)),
      ),
    watches !== undefined &&
      (watches.length === 0
        ? h('p', null, t('watch_none'))
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'watch-table' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  h('th', { scope: 'col' }, t('watch_schedule')),
                  h('th', { scope: 'col' }, t('watch_next_run')),
                  h('th', { scope: 'col' }, t('watch_alerts_to')),
                  h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, t('watch_remove'))),
                ),
              ),
              h(
                'tbody',
                null,
                watches.map((watch) =>
                  h(
                    'tr',
                    { key: watch.watch_id },
                    h('td', null, watch.schedule),
                    h('td', null, dateTime(watch.next_run_at)),
                    h('td', null, [watch.webhook_url, watch.email].filter((to) => to !== null).join(', ') || t('watch_no_alerts')),
                    h(
                      'td',
                      null,
                      h(
                        'button',
                        {
                          type: 'button',
                          class: 'secondary',
                          onClick: () => remove(watch),
                          'aria-label': t('watch_remove_n', { schedule: watch.schedule }),
                        },
                        '×',
                      ),
                    ),
                  ),
                ),
              ),
            ),
          )),
    h(
      'form',
      { onSubmit: add, class: 'watch-add' },
      field('watch-schedule', t('watch_schedule'), form.schedule, (schedule) => setForm({ ...form, schedule }), {
        hint: t('watch_schedule_hint'),
        required: true,
      }),
      field('watch-webhook', t('watch_webhook'), form.webhook, (webhook) => setForm({ ...form, webhook }), { inputMode: 'url' }),
      field('watch-email', t('watch_email'), form.email, (email) => setForm({ ...form, email }), {
        inputMode: 'email',
        autoComplete: 'email',
      }),
      h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, t('watch_add'))),
    ),
  );
}
