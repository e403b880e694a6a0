// The Automation module's verdict (profile extended): what the parent zone should publish now from the
// zone's CDS/CDNSKEY — the DS records ready to paste at a registrar, "remove all", or why nothing.
import { h } from 'preact';
import type { ParentDs } from '../api.ts';
import { useI18n } from '../i18n.ts';

export function ParentDsSection(props: { parentDs: ParentDs }) {
  const { t } = useI18n();
  const { action, ds, reason } = props.parentDs;
  return h(
    'section',
    { class: `parent-ds parent-ds-${action}`, 'aria-labelledby': 'parent-ds-heading' },
    h('h2', { id: 'parent-ds-heading' }, t('parent_ds_title'), ' ', h('span', { class: 'beyond' }, t('beyond_zonemaster'))),
    h('p', { class: 'parent-ds-action' }, h('strong', null, t(`parent_ds_${action}`))),
    h('p', { class: 'hint' }, reason),
    ds.length > 0 ? h('pre', { class: 'parent-ds-records', 'aria-label': t('parent_ds_records') }, ds.join('\n')) : null,
  );
}
