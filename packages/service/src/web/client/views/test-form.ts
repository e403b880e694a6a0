// The test form: a domain, and under "Advanced options" name servers, DS records, IP versions and
// the profile. Input is checked by the API (start_domain_test, get_data_from_parent_zone), whose
// validation messages, in the page's language, are shown next to the field their path points at.
import { h } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, RpcError, type TestParams, type ValidationError } from '../api.ts';
import { useI18n } from '../i18n.ts';
import { navigate } from '../navigation.ts';
import { paths } from '../../../shared/page-routes.ts';
import { useAsync } from '../use-async.ts';
import { Field } from './field.ts';

interface NsRow {
  ns: string;
  ip: string;
}
interface DsRow {
  keytag: string;
  algorithm: string;
  digtype: string;
  digest: string;
}
const DS_FIELDS = ['keytag', 'algorithm', 'digtype', 'digest'] as const;
const emptyNs = (): NsRow => ({ ns: '', ip: '' });
const emptyDs = (): DsRow => ({ keytag: '', algorithm: '', digtype: '', digest: '' });
const filled = (row: object) => Object.values(row).some((v) => String(v).trim() !== '');

/** Field errors by input id, and the messages no field of the form shows. */
interface Errors {
  fields: Map<string, string>;
  other: string[];
}
const noErrors: Errors = { fields: new Map(), other: [] };

export function TestForm(props: { initialDomain: string }) {
  const { t, plural, language } = useI18n();
  const [domain, setDomain] = useState(props.initialDomain);
  const [nameservers, setNameservers] = useState<NsRow[]>([emptyNs()]);
  const [dsRows, setDsRows] = useState<DsRow[]>([]);
  const [ipv4, setIpv4] = useState(true);
  const [ipv6, setIpv6] = useState(true);
  const [profile, setProfile, profileNames] = useProfileChoice();
  const [advanced, setAdvanced] = useState(false);
  const [errors, setErrors] = useState<Errors>(noErrors);
  const [busy, setBusy] = useState<'' | 'start' | 'parent'>('');
  const [status, setStatus] = useState('');
  const form = useRef<HTMLFormElement>(null);

  // After a refused submission, focus goes to the first field in error (or the summary), in the same
  // task that shows the errors: a screen reader (or a test) never meets the errors without the focus.
  useLayoutEffect(() => {
    if (errors === noErrors) return;
    const target =
      form.current?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? form.current?.querySelector<HTMLElement>('.form-errors');
    target?.focus();
  }, [errors]);

  /** Rows actually sent, with the index each has in the form (API paths count only the sent ones). */
  const sentNs = nameservers.map((row, index) => ({ row, index })).filter(({ row }) => filled(row));
  const sentDs = dsRows.map((row, index) => ({ row, index })).filter(({ row }) => filled(row));

  const refused = (error: unknown) => {
    const shown = errorsOf(
      error,
      (path) => fieldOfPath(path, sentNs, sentDs),
      (path) => t('label_colon', { label: path }),
    );
    if ([...shown.fields.keys()].some((id) => id !== 'field-domain')) setAdvanced(true);
    setErrors(shown);
  };

  const start = async (event: Event) => {
    event.preventDefault();
    setBusy('start');
    setStatus('');
    try {
      const params: TestParams & { language: string } = {
        domain: domain.trim(),
        ipv4,
        ipv6,
        profile,
        nameservers: sentNs.map(({ row }) => ({ ns: row.ns.trim(), ip: row.ip.trim() })),
        ds_info: sentDs.map(({ row }) => ({
          keytag: row.keytag.trim(),
          algorithm: row.algorithm.trim(),
          digtype: row.digtype.trim(),
          digest: row.digest.trim(),
        })),
        language,
      };
      const asked = Date.now();
      const id = await api.startDomainTest(params);
      // The result page tells a recent result reused for this request from a new run by when the test was made.
      navigate(`${paths.result(id)}?asked=${asked}`);
    } catch (error) {
      refused(error);
      setBusy('');
    }
  };

  const fillFromParent = async () => {
    if (domain.trim() === '') {
      setErrors({ fields: new Map([['field-domain', t('enter_domain_first')]]), other: [] });
      return;
    }
    setBusy('parent');
    setStatus(t('fetching_from_parent'));
    try {
      const data = await api.dataFromParentZone(domain.trim(), language);
      setNameservers(data.ns_list.length > 0 ? data.ns_list.map((n) => ({ ns: n.ns, ip: n.ip })) : [emptyNs()]);
      setDsRows(
        data.ds_list.map((d) => ({
          keytag: String(d.keytag),
          algorithm: String(d.algorithm),
          digtype: String(d.digtype),
          digest: d.digest,
        })),
      );
      setErrors(noErrors);
      setStatus(t('fetched_from_parent', { ns: plural('ns_count', data.ns_list.length), ds: plural('ds_count', data.ds_list.length) }));
    } catch (error) {
      setStatus('');
      refused(error);
    } finally {
      setBusy('');
    }
  };

  const openHistory = () => {
    const name = domain.trim().toLowerCase().replace(/\.$/, '');
    if (name === '') setErrors({ fields: new Map([['field-domain', t('enter_domain_first')]]), other: [] });
    else navigate(paths.history(name));
  };
  const error = (id: string) => errors.fields.get(id);

  return h(
    'form',
    { ref: form, class: 'test-form', onSubmit: start, noValidate: true },
    h(ErrorSummary, { errors }),
    h(Field, {
      id: 'field-domain',
      class: 'domain',
      label: t('domain_label'),
      hint: t('domain_hint'),
      value: domain,
      onInput: setDomain,
      error: error('field-domain'),
      inputMode: 'url',
      required: true,
      after: h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', class: 'primary', disabled: busy !== '' }, busy === 'start' ? t('starting') : t('start_test')),
        h('button', { type: 'button', class: 'secondary', onClick: openHistory }, t('earlier_tests')),
      ),
    }),
    h(
      'details',
      { class: 'advanced', open: advanced, onToggle: (e: Event) => setAdvanced((e.currentTarget as HTMLDetailsElement).open) },
      h('summary', null, t('advanced_options')),
      h('p', { class: 'hint' }, t('undelegated_hint')),
      h(
        'div',
        { class: 'parent-fill' },
        h(
          'button',
          { type: 'button', class: 'secondary', onClick: () => void fillFromParent(), disabled: busy !== '' },
          t('fetch_from_parent'),
        ),
        h('p', { role: 'status', class: 'status' }, status),
      ),
      h(NameServerRows, { rows: nameservers, set: setNameservers, error }),
      h(DsRowsFieldset, { rows: dsRows, set: setDsRows, error }),
      h(IpSwitches, { ipv4, ipv6, setIpv4, setIpv6 }),
      h(ProfileField, { profile, set: setProfile, names: profileNames, error: error('field-profile') }),
    ),
  );
}

/**
 * The profile chosen, and those to choose from: the extended profile (Zonemaster's test cases and ours beyond them)
 * when the service offers it, else its default.
 */
function useProfileChoice(): [string, (profile: string) => void, readonly string[]] {
  const [profile, setProfile] = useState('extended');
  const profiles = useAsync(() => api.profileNames(), []);
  useEffect(() => {
    if (profiles.status === 'done' && !profiles.value.includes(profile))
      setProfile(profiles.value.includes('default') ? 'default' : (profiles.value[0] ?? 'default'));
  }, [profiles.status]);
  return [profile, setProfile, profiles.status === 'done' ? profiles.value : [profile]];
}

/** A refusal as the form shows it: each validation message at its field, the others (and any other error) above the form. */
function errorsOf(error: unknown, fieldFor: (path: string) => string | undefined, labelled: (path: string) => string): Errors {
  const issues: ValidationError[] = error instanceof RpcError ? error.validationErrors : [];
  if (issues.length === 0)
    return {
      fields: new Map(),
      other: [error instanceof RpcError ? error.explanation : error instanceof Error ? error.message : String(error)],
    };
  const fields = new Map<string, string>();
  const other: string[] = [];
  for (const { path, message } of issues) {
    const id = fieldFor(path);
    if (id === undefined) other.push(`${labelled(path)} ${message}`);
    else fields.set(id, fields.has(id) ? `${fields.get(id)} ${message}` : message);
  }
  return { fields, other };
}

/** The form field an API validation path points at (paths count only the rows sent), if one shows it. */
function fieldOfPath(path: string, sentNs: readonly { index: number }[], sentDs: readonly { index: number }[]): string | undefined {
  const [, list, n, key] = path.split('/');
  if (list === 'domain') return 'field-domain';
  if (list === 'profile') return 'field-profile';
  if (list === 'nameservers' && n !== undefined) {
    const row = sentNs[Number(n)]?.index;
    return row === undefined ? undefined : `field-ns-${row}-${key === 'ip' ? 'ip' : 'ns'}`;
  }
  if (list === 'ds_info' && n !== undefined) {
    const row = sentDs[Number(n)]?.index;
    return row === undefined ? undefined : `field-ds-${row}-${DS_FIELDS.find((f) => f === key) ?? 'keytag'}`;
  }
  return undefined;
}

function ErrorSummary({ errors }: { errors: Errors }) {
  const { t } = useI18n();
  if (errors.other.length === 0 && errors.fields.size === 0) return null;
  return h(
    'div',
    { class: 'form-errors alert', role: 'alert', tabIndex: -1 },
    h('p', null, t('fix_errors')),
    errors.other.length > 0 &&
      h(
        'ul',
        null,
        errors.other.map((message) => h('li', { key: message }, message)),
      ),
  );
}

function IpSwitches({
  ipv4,
  ipv6,
  setIpv4,
  setIpv6,
}: {
  ipv4: boolean;
  ipv6: boolean;
  setIpv4: (on: boolean) => void;
  setIpv6: (on: boolean) => void;
}) {
  const { t } = useI18n();
  const checked = (e: Event) => (e.currentTarget as HTMLInputElement).checked;
  return h(
    'fieldset',
    { class: 'switches' },
    h('legend', null, t('ip_versions')),
    h('label', null, h('input', { type: 'checkbox', checked: ipv4, onChange: (e: Event) => setIpv4(checked(e)) }), ' ', t('ipv4')),
    h('label', null, h('input', { type: 'checkbox', checked: ipv6, onChange: (e: Event) => setIpv6(checked(e)) }), ' ', t('ipv6')),
  );
}

const updateRow = <T>(rows: T[], set: (rows: T[]) => void, index: number, change: Partial<T>) =>
  set(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));

interface RowsProps<T> {
  rows: T[];
  set: (rows: T[]) => void;
  error: (id: string) => string | undefined;
}

function NameServerRows({ rows, set, error }: RowsProps<NsRow>) {
  const { t } = useI18n();
  return h(
    'fieldset',
    { class: 'rows' },
    h('legend', null, t('nameservers')),
    rows.map((row, i) =>
      h(
        'fieldset',
        { class: 'row ns-row', key: `ns-${i}` },
        h('legend', null, t('nameserver_n', { n: i + 1 })),
        h(Field, {
          id: `field-ns-${i}-ns`,
          label: t('ns_name'),
          value: row.ns,
          onInput: (ns) => updateRow(rows, set, i, { ns }),
          error: error(`field-ns-${i}-ns`),
        }),
        h(Field, {
          id: `field-ns-${i}-ip`,
          label: t('ns_address'),
          value: row.ip,
          onInput: (ip) => updateRow(rows, set, i, { ip }),
          error: error(`field-ns-${i}-ip`),
        }),
        h(
          'button',
          {
            type: 'button',
            class: 'remove',
            onClick: () => set(rows.filter((_, j) => j !== i)),
            'aria-label': t('remove_nameserver_n', { n: i + 1 }),
          },
          '×',
        ),
      ),
    ),
    h('button', { type: 'button', class: 'secondary', onClick: () => set([...rows, emptyNs()]) }, t('add_nameserver')),
  );
}

function DsRowsFieldset({ rows, set, error }: RowsProps<DsRow>) {
  const { t } = useI18n();
  return h(
    'fieldset',
    { class: 'rows' },
    h('legend', null, t('ds_records')),
    rows.map((row, i) =>
      h(
        'fieldset',
        { class: 'row ds-row', key: `ds-${i}` },
        h('legend', null, t('ds_n', { n: i + 1 })),
        DS_FIELDS.map((name) =>
          h(Field, {
            key: name,
            id: `field-ds-${i}-${name}`,
            class: name,
            label: t(`ds_${name}`),
            value: row[name],
            inputMode: name === 'digest' ? 'text' : 'numeric',
            onInput: (value) => updateRow(rows, set, i, { [name]: value }),
            error: error(`field-ds-${i}-${name}`),
          }),
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'remove',
            onClick: () => set(rows.filter((_, j) => j !== i)),
            'aria-label': t('remove_ds_n', { n: i + 1 }),
          },
          '×',
        ),
      ),
    ),
    h('button', { type: 'button', class: 'secondary', onClick: () => set([...rows, emptyDs()]) }, t('add_ds')),
  );
}

function ProfileField({
  profile,
  set,
  names,
  error,
}: {
  profile: string;
  set: (profile: string) => void;
  names: readonly string[];
  error: string | undefined;
}) {
  const { t } = useI18n();
  return h(
    'div',
    { class: 'field' },
    h('label', { for: 'field-profile' }, t('profile')),
    error && h('p', { class: 'field-error', id: 'field-profile-error' }, error),
    h(
      'select',
      {
        id: 'field-profile',
        value: profile,
        onChange: (e: Event) => set((e.currentTarget as HTMLSelectElement).value),
        'aria-invalid': error ? 'true' : undefined,
        'aria-describedby': error ? 'field-profile-error' : undefined,
      },
      names.map((name) => h('option', { key: name, value: name }, name)),
    ),
  );
}
