// dnsdist in front of a lab server of any implementation: DNS over TLS on 853 and DNS over HTTPS on
// 443 at the server's own addresses, passed on to the server's port 53; and a plain listener of its
// own on 8053, by which the lab knows it is up.
import type { LabServer, TlsFiles } from './world-plan.ts';

export const dnsdistCheckPort = 8053;

const lua = (text: string): string => JSON.stringify(text);
const at = (address: string, port: number): string => (address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`);

/** `backend`: where queries go (the server's own first address unless the scenario names another server). */
export function dnsdistConfig(server: LabServer, tls: TlsFiles, backend = server.addresses[0]): string {
  const wanted = server.encrypted!;
  const lines = [
    'setSecurityPollSuffix("")',
    // Lab addresses are documentation prefixes, outside dnsdist's default ACL of private ranges.
    'setACL({"0.0.0.0/0", "::/0"})',
    `setLocal(${lua(at(server.addresses[0], dnsdistCheckPort))})`,
    `newServer({address=${lua(at(backend, 53))}})`,
  ];
  for (const address of server.addresses) {
    if (wanted.dot === true) lines.push(`addTLSLocal(${lua(at(address, 853))}, ${lua(tls.cert)}, ${lua(tls.key)})`);
    if (wanted.doh) lines.push(`addDOHLocal(${lua(at(address, 443))}, ${lua(tls.cert)}, ${lua(tls.key)}, "/dns-query")`);
  }
  return `${lines.join('\n')}\n`;
}
