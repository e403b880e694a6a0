// The SOA RNAME as a mail address (RFC 1035 §3.3.13: the first label is the local part), and whether
// that address is well formed the way the reference judges it: RFC 822 addr-spec syntax, a local part
// of at most 64 characters, at most 254 in all, and a fully qualified host name (or an IPv4 literal)
// after the '@'.

/** 'first\.last.example.test.' → 'first.last@example.test': the first unescaped dot becomes '@'. */
export function rnameToAddress(rname: string): string {
  return rname
    .replace(/([^\\])\./, '$1@')
    .replaceAll('\\.', '.')
    .replace(/\.$/, '');
}

// RFC 822 §3.3 and §6.1, without comments and folding (a name never holds them).
const atom = String.raw`[^\x00-\x20()<>@,;:\\".\[\]\x7f]+`;
const quoted = String.raw`"(?:[^"\\\r]|\\[\s\S])*"`;
const word = `(?:${atom}|${quoted})`;
const literal = String.raw`\[(?:[^\[\]\\\r]|\\[\s\S])*\]`;
const subDomain = `(?:${atom}|${literal})`;
const addrSpec = new RegExp(`^(${word}(?:\\.${word})*)@(${subDomain}(?:\\.${subDomain})*)$`);

const hostLabel = /^[A-Za-z0-9](?:[-A-Za-z0-9]*[A-Za-z0-9])?$/;

function isFullyQualifiedHost(host: string): boolean {
  if (host.length === 0 || host.length > 255 || host.includes('..')) return false;
  const labels = host.split('.');
  return labels.length > 1 && labels.every((label) => hostLabel.test(label));
}

export function isValidMailAddress(address: string): boolean {
  // eslint-disable-next-line no-control-regex -- RFC 822 text is ASCII
  if (/[^\x00-\x7f]/.test(address)) return false;
  const match = addrSpec.exec(address);
  if (!match) return false;
  const [, local = '', host = ''] = match;
  if (address.length > 254 || local.length > 64) return false;
  return /^\[(?:\d{1,3}\.){3}\d{1,3}/.test(host) || isFullyQualifiedHost(host);
}
