// The Zone integrity module's summary (profile extended): the ZONEMD verdict with each server address's
// result, and whether the zone's names can be listed, with the NSEC3 parameters and hashes.
import { h } from 'preact';
import type { ZoneIntegrity } from '../api.ts';
import { useI18n } from '../i18n.ts';

const good = new Set(['verified']);

export function ZoneIntegrityPanel(props: { summary: ZoneIntegrity }) {
  const { t } = useI18n();
  const { zonemd, walk } = props.summary;
  return h(
    'section',
    { class: 'zone-integrity', 'aria-labelledby': 'zone-integrity-heading' },
    h('h2', { id: 'zone-integrity-heading' }, t('zi_title'), ' ', h('span', { class: 'beyond' }, t('beyond_zonemaster'))),
    h('p', { class: 'hint' }, t('zi_intro')),
    h(
      'dl',
      null,
      zonemd === undefined
        ? null
        : [
            h('dt', { key: 'zonemd' }, t('zi_zonemd')),
            h(
              'dd',
              { key: 'zonemd-verdict', class: `zonemd-${zonemd.verdict}` },
              t(`zi_zonemd_${zonemd.verdict}`),
              zonemd.servers.length === 0
                ? null
                : h(
                    'ul',
                    null,
                    zonemd.servers.map((s) =>
                      h(
                        'li',
                        { key: `${s.ns}/${s.address}`, class: good.has(s.result) ? 'pass' : 'fail' },
                        h('strong', null, s.ns),
                        ` ${s.address}: `,
                        h('code', null, s.result),
                      ),
                    ),
                  ),
            ),
          ],
      walk === undefined
        ? null
        : [
            h('dt', { key: 'walk' }, t('zi_walk')),
            h(
              'dd',
              { key: 'walk-verdict', class: walk.listable ? 'listable' : 'not-listable' },
              t(`zi_walk_${walk.denial}`, { names: walk.names ?? 0 }),
              walk.nsec3 === undefined
                ? null
                : h(
                    'p',
                    null,
                    t('zi_nsec3_parameters', {
                      iterations: walk.nsec3.iterations,
                      salt: walk.nsec3.salt,
                      opt_out: String(walk.nsec3.opt_out),
                    }),
                    ' — ',
                    t(walk.nsec3.as_rfc9276_advises ? 'zi_nsec3_advised' : 'zi_nsec3_not_advised'),
                  ),
              walk.hashes.length === 0
                ? null
                : h(
                    'ul',
                    null,
                    walk.hashes.map((hash) => h('li', { key: hash.name }, `${t('zi_hash')} ${hash.name}: `, h('code', null, hash.hash))),
                  ),
            ),
          ],
    ),
  );
}
