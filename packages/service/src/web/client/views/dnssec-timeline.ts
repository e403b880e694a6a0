// On /history/<domain>: the domain's DNSSEC over its recent runs (get_dnssec_timeline): a lane per DS
// record, per key of each server and per server's first-expiring signature, the runs that saw each as
// bars, and a red mark where a watch would have alerted, each alert also in a list below.
import { h } from 'preact';
import { api, type DnssecTimeline as Timeline } from '../api.ts';
import { useI18n } from '../i18n.ts';
import { timelineModel } from '../timeline-model.ts';
import { useAsync } from '../use-async.ts';
import { asyncView } from './common.ts';

const LABEL = 230;
const PLOT = 520;
const LANE = 18;
const HEAD = 22;

function alertText(alert: Timeline['alerts'][number], t: ReturnType<typeof useI18n>['t'], at: (iso: string) => string) {
  if (alert.kind === 'signature_expiry')
    return t('rollover_signature_expiry', {
      rrset: `${alert.owner} ${alert.type}`,
      expires: at(alert.expiration),
      deadline: at(new Date(Date.parse(alert.expiration) - alert.ttl * 1000).toISOString()),
      ttl: alert.ttl,
      servers: alert.servers.join(', '),
    });
  return t(`rollover_${alert.kind}`, { record: alert.record, until: at(alert.needed_until), ttl: alert.ttl });
}

export function DnssecTimeline(props: { domain: string }) {
  const { t, dateTime } = useI18n();
  const timeline = useAsync(() => api.dnssecTimeline(props.domain), [props.domain]);
  return h(
    'section',
    { class: 'dnssec-timeline', 'aria-labelledby': 'timeline-heading' },
    h('h2', { id: 'timeline-heading' }, t('timeline_title')),
    asyncView(timeline, (value: Timeline) => {
      if (value.runs.length === 0) return h('p', null, t('timeline_none'));
      const model = timelineModel(value, {
        ds: t('timeline_ds'),
        keys: (server) => t('timeline_keys', { server }),
        validity: (server) => t('timeline_validity', { server }),
        span: (from, to) =>
          from === to
            ? dateTime(new Date(from).toISOString())
            : `${dateTime(new Date(from).toISOString())} – ${dateTime(new Date(to).toISOString())}`,
      });
      const x = (at: number) => LABEL + ((at - model.start) / Math.max(1, model.end - model.start)) * PLOT;
      const rows: { y: number; group?: string; lane?: (typeof model.lanes)[number] }[] = [];
      let y = HEAD;
      let group: string | undefined;
      for (const lane of model.lanes) {
        if (lane.group !== group) {
          group = lane.group;
          rows.push({ y, group });
          y += LANE;
        }
        rows.push({ y, lane });
        y += LANE;
      }
      const alerts = value.alerts.map((alert) => ({ at: Date.parse(alert.at), text: alertText(alert, t, dateTime) }));
      const height = y + 6;
      return [
        h('p', { class: 'hint' }, t('timeline_intro')),
        h(
          'div',
          { class: 'timeline-canvas' },
          h(
            'svg',
            {
              class: 'timeline-picture',
              viewBox: `0 0 ${LABEL + PLOT + 10} ${height}`,
              role: 'img',
              'aria-labelledby': 'timeline-heading',
            },
            h('text', { x: LABEL, y: 14, class: 'timeline-axis' }, dateTime(new Date(model.start).toISOString())),
            h(
              'text',
              { x: LABEL + PLOT, y: 14, class: 'timeline-axis', 'text-anchor': 'end' },
              dateTime(new Date(model.end).toISOString()),
            ),
            rows.map((row) =>
              row.group !== undefined
                ? h('text', { key: `g${row.y}`, x: 4, y: row.y + 13, class: 'timeline-group' }, row.group)
                : h(
                    'g',
                    { key: `l${row.y}` },
                    h('text', { x: 14, y: row.y + 13, class: 'timeline-label' }, row.lane?.label),
                    h('line', { x1: LABEL, x2: LABEL + PLOT, y1: row.y + 9, y2: row.y + 9, class: 'timeline-rule' }),
                    row.lane?.spans.map((span, i) =>
                      h(
                        'rect',
                        {
                          key: i,
                          x: x(span.from) - 2,
                          y: row.y + 4,
                          width: Math.max(4, x(span.to) - x(span.from) + 4),
                          height: 10,
                          rx: 2,
                          class: 'timeline-span',
                        },
                        h('title', null, span.title),
                      ),
                    ),
                  ),
            ),
            alerts.map((alert, i) =>
              h(
                'line',
                { key: `a${i}`, x1: x(alert.at), x2: x(alert.at), y1: HEAD - 4, y2: height - 4, class: 'timeline-alert' },
                h('title', null, alert.text),
              ),
            ),
          ),
        ),
        alerts.length > 0 &&
          h(
            'div',
            null,
            h('h3', null, t('timeline_issues')),
            h(
              'ul',
              { class: 'timeline-alerts' },
              alerts.map((alert, i) => h('li', { key: i }, `${dateTime(new Date(alert.at).toISOString())}: ${alert.text}`)),
            ),
          ),
      ];
    }),
  );
}
