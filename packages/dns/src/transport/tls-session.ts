// What a TLS handshake with a name server showed: protocol version, ALPN, the certificate, and whether
// it checks out against the CA given (or the system's) for the name asked (RFC 8310 §8, RFC 9539 §4.3).
import { checkServerIdentity, type PeerCertificate, type SecureContext, type TLSSocket } from 'node:tls';

export interface TlsCertificateInfo {
  /** Subject alternative names (DNS names and IP addresses), else the subject's common name. */
  names: string[];
  issuer: string;
  notBefore: string;
  notAfter: string;
  /** Issued by its own subject (no CA behind it). */
  selfSigned: boolean;
  /** It names the server name asked (whatever its chain and dates); undefined when no name was asked. */
  validForName?: boolean;
}

export interface TlsSession {
  /** `TLSv1.3`, `TLSv1.2`, ... */
  version: string;
  /** The protocol ALPN settled on; undefined when the server chose none. */
  alpn?: string;
  certificate?: TlsCertificateInfo;
  /** The chain verifies to a trusted CA and the certificate names `serverName`. */
  authenticated: boolean;
  /** Why not (OpenSSL's or Node's code: CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID, ...). */
  authenticationError?: string;
}

export interface TlsClientOptions {
  /** The name the certificate must be valid for (sent as SNI); none: only the chain is checked. */
  serverName?: string;
  /** PEM CA certificates to trust instead of the system's. */
  ca?: string | string[];
  /** Made once by the caller (tls.createSecureContext({ ca })) for many queries: parsing a CA list per connection is slow. */
  secureContext?: SecureContext;
}

const distinguishedName = (fields: PeerCertificate['subject'] | undefined): string =>
  fields
    ? Object.entries(fields)
        .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join('+') : value}`)
        .join(', ')
    : '';

function certificateInfo(cert: PeerCertificate, serverName: string | undefined): TlsCertificateInfo | undefined {
  if (!cert || Object.keys(cert).length === 0) return undefined;
  const alt = (cert.subjectaltname ?? '')
    .split(/,\s*/)
    .filter(Boolean)
    .map((entry) => entry.replace(/^(DNS|IP Address):/, ''));
  const cn = cert.subject?.CN;
  const names = alt.length > 0 ? alt : cn ? [Array.isArray(cn) ? cn.join('+') : cn] : [];
  const issuer = distinguishedName(cert.issuer);
  return {
    names,
    issuer,
    notBefore: new Date(cert.valid_from).toISOString(),
    notAfter: new Date(cert.valid_to).toISOString(),
    selfSigned: issuer === distinguishedName(cert.subject),
    ...(serverName !== undefined && { validForName: checkServerIdentity(serverName, cert) === undefined }),
  };
}

/** The session of a socket whose handshake has completed (rejectUnauthorized off, so it completes whatever the certificate). */
export function tlsSession(socket: TLSSocket, serverName?: string): TlsSession {
  const certificate = certificateInfo(socket.getPeerCertificate(), serverName);
  const error = socket.authorizationError as unknown as Error | string | null;
  return {
    version: socket.getProtocol() ?? '',
    ...(typeof socket.alpnProtocol === 'string' && { alpn: socket.alpnProtocol }),
    ...(certificate && { certificate }),
    authenticated: socket.authorized,
    ...(error && { authenticationError: typeof error === 'string' ? error : ((error as NodeJS.ErrnoException).code ?? error.message) }),
  };
}
