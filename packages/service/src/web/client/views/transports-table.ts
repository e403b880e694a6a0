// The Transport module's results (profile extended): one row per name server address with DNS over
// TLS (version, ALPN, whether the certificate is valid for the server's name), DNS over HTTPS (GET,
// POST), the SOA serial over each transport and how long each took. "closed": the port refused.
import { h } from 'preact';
import type { TransportEntry } from '../api.ts';
import { useI18n } from '../i18n.ts';

const serial = (value: number | null): string => (value === null ? '–' : String(value));

/** Serials that differ between the transports of one address are what the row is about. */
function serialsDiffer(entry: TransportEntry): boolean {
  const seen = [entry.udp_soa_serial, entry.tcp_soa_serial, entry.dot?.soa_serial ?? null, entry.doh?.soa_serial ?? null];
  return new Set(seen.filter((s) => s !== null)).size > 1;
}

export function TransportsTable(props: { transports: TransportEntry[] }) {
  const { t } = useI18n();
  const mark = (ok: boolean) => h('span', { class: ok ? 'result-pass' : 'result-fail' }, ok ? '✓ ' : '✗ ');
  const dotCell = (entry: TransportEntry) => {
    const dot = entry.dot;
    if (dot === null) return t('transports_closed');
    if (!dot.handshake) return [mark(false), t('transports_no_handshake')];
    return [mark(true), `${dot.tls_version ?? ''}, ALPN ${dot.alpn ?? '–'}`];
  };
  const certCell = (entry: TransportEntry) => {
    const dot = entry.dot;
    if (dot === null || !dot.handshake) return null;
    return [
      mark(dot.cert_valid_for_ns),
      dot.cert_names.join(', '),
      dot.cert_not_after === null ? null : h('br', null),
      dot.cert_not_after === null ? null : t('transports_until', { date: dot.cert_not_after.slice(0, 10) }),
    ];
  };
  const dohCell = (entry: TransportEntry) =>
    entry.doh === null ? t('transports_closed') : [mark(entry.doh.get), 'GET ', mark(entry.doh.post), 'POST'];
  return h(
    'section',
    { class: 'transports', 'aria-labelledby': 'transports-heading' },
    h('h2', { id: 'transports-heading' }, t('transports_title'), ' ', h('span', { class: 'beyond' }, t('beyond_zonemaster'))),
    h('p', { class: 'hint' }, t('transports_intro')),
    h(
      'table',
      { class: 'transports-table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, t('transports_server')),
          h('th', { scope: 'col' }, 'DoT'),
          h('th', { scope: 'col' }, t('transports_certificate')),
          h('th', { scope: 'col' }, 'DoH'),
          h('th', { scope: 'col' }, t('transports_serials')),
          h('th', { scope: 'col' }, t('transports_times')),
        ),
      ),
      h(
        'tbody',
        null,
        props.transports.map((entry) =>
          h(
            'tr',
            { key: `${entry.ns}/${entry.address}`, class: serialsDiffer(entry) ? 'fail' : undefined },
            h('th', { scope: 'row' }, h('strong', null, entry.ns), h('br', null), entry.address),
            h('td', null, dotCell(entry)),
            h('td', null, certCell(entry)),
            h('td', null, dohCell(entry)),
            h(
              'td',
              null,
              `UDP ${serial(entry.udp_soa_serial)} · TCP ${serial(entry.tcp_soa_serial)} · DoT ${serial(entry.dot?.soa_serial ?? null)} · DoH ${serial(entry.doh?.soa_serial ?? null)}`,
            ),
            h(
              'td',
              null,
              Object.entries(entry.ms)
                .map(([transport, ms]) => `${transport.toUpperCase()} ${ms === null ? '–' : `${ms} ms`}`)
                .join(' · '),
            ),
          ),
        ),
      ),
    ),
  );
}
