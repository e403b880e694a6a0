// The Transport module's table is made from its findings alone, so a stored run gives the same table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Finding } from '../src/finding.ts';
import { transportsLines, transportsTable } from '../src/run/transports-table.ts';

const finding = (tag: string, args: Finding['args']): Finding => ({
  module: 'TRANSPORT',
  testcase: 'Transport01',
  tag,
  level: 'INFO',
  args,
  timestamp: 0,
});

test('one entry per address: DoT and DoH as seen, null where the port refused, serials per transport', () => {
  const a = 'ns1.example.test/192.0.2.1';
  const b = 'ns2.example.test/2001:db8::2';
  const table = transportsTable([
    finding('DOT_HANDSHAKE', {
      ns: a,
      tls_version: 'TLSv1.3',
      alpn: '',
      cert_names: 'ns1.example.test,ns1-alias.example.test',
      issuer: 'CN=CA',
      not_after: '2027-01-01T00:00:00.000Z',
      cert_valid: 'no',
      soa_serial: 7,
    }),
    finding('DOH_RESULT', { ns: a, get: 'no', post: 'yes', soa_serial: 7 }),
    finding('TRANSPORT_SUMMARY', {
      ns: a,
      udp_serial: 8,
      tcp_serial: 8,
      dot_serial: 7,
      doh_serial: 7,
    }),
    finding('TRANSPORT_TIMINGS', { ns: a, udp_ms: 1, tcp_ms: 2, dot_ms: 12, doh_ms: '' }),
    finding('DOT_TIMEOUT', { ns: b, seconds: 5 }),
    finding('DOH_NOT_OFFERED', { ns: b }),
    finding('TRANSPORT_SUMMARY', {
      ns: b,
      udp_serial: 8,
      tcp_serial: '',
      dot_serial: '',
      doh_serial: '',
    }),
    finding('TRANSPORT_TIMINGS', { ns: b, udp_ms: 1, tcp_ms: '', dot_ms: '', doh_ms: '' }),
    { ...finding('PROTOCOL_TEST_PASSED', { ns: a, test: 'dns', result: 'ok' }), module: 'COMPLIANCE' },
  ]);
  assert.deepEqual(table, [
    {
      ns: 'ns1.example.test',
      address: '192.0.2.1',
      dot: {
        handshake: true,
        tls_version: 'TLSv1.3',
        alpn: null,
        cert_names: ['ns1.example.test', 'ns1-alias.example.test'],
        cert_valid_for_ns: false,
        cert_not_after: '2027-01-01T00:00:00.000Z',
        soa_serial: 7,
      },
      doh: { get: false, post: true, soa_serial: 7 },
      udp_soa_serial: 8,
      tcp_soa_serial: 8,
      ms: { udp: 1, tcp: 2, dot: 12, doh: null },
    },
    {
      ns: 'ns2.example.test',
      address: '2001:db8::2',
      dot: {
        handshake: false,
        tls_version: null,
        alpn: null,
        cert_names: [],
        cert_valid_for_ns: false,
        cert_not_after: null,
        soa_serial: null,
      },
      doh: null,
      udp_soa_serial: 8,
      tcp_soa_serial: null,
      ms: { udp: 1, tcp: null, dot: null, doh: null },
    },
  ]);
  const lines = transportsLines(table);
  assert.match(
    lines[0],
    /^ns1\.example\.test @192\.0\.2\.1: udp=8 tcp=8 dot=TLSv1\.3,alpn:-,cert:no,serial:7 doh=get:no,post:yes,serial:7/,
  );
  assert.match(lines[1], /dot=no-handshake doh=closed/);
  assert.deepEqual(transportsTable([]), []);
});
