// Real alert receivers on loopback for the watch tests: an HTTPS webhook endpoint and an SMTP server
// that requires STARTTLS and authentication, both with one self-signed certificate made here.
import { once } from 'node:events';
import https from 'node:https';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { generate } from 'selfsigned';
import { SMTPServer } from 'smtp-server';

export interface Pems {
  private: string;
  cert: string;
}

export function loopbackCertificate(): Promise<Pems> {
  return generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
}

export interface WebhookRequest {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  received: WebhookRequest[];
  /** HTTP statuses to answer in turn; 200 once they run out. */
  statuses: number[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(pems: Pems): Promise<WebhookReceiver> {
  const received: WebhookRequest[] = [];
  const statuses: number[] = [];
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(statuses.shift() ?? 200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/dns`,
    received,
    statuses,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface Mail {
  from: string;
  to: string[];
  user: string;
  /** Whether the session had switched to TLS before the message. */
  secure: boolean;
  raw: string;
}

export interface SmtpReceiver {
  port: number;
  user: string;
  password: string;
  mails: Mail[];
  close(): Promise<void>;
}

export async function startSmtpReceiver(pems: Pems): Promise<SmtpReceiver> {
  const user = 'alerts';
  const password = 'alert-password';
  const mails: Mail[] = [];
  const server = new SMTPServer({
    key: pems.private,
    cert: pems.cert,
    secure: false,
    // Refuses AUTH before STARTTLS, as a real submission server does.
    allowInsecureAuth: false,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          user: String(session.user),
          secure: session.secure,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
    logger: false,
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  return {
    port: (server.server.address() as AddressInfo).port,
    user,
    password,
    mails,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface ConnectionCounter {
  port: number;
  /** TCP connections accepted on 127.0.0.1 (and ::1, when it could listen there too) on the port. */
  readonly connections: number;
  close(): Promise<void>;
}

/** A listener that only counts the connections it gets: whatever reaches it got through. */
export async function connectionCounter(): Promise<ConnectionCounter> {
  let connections = 0;
  const count = (socket: Socket) => {
    connections++;
    socket.destroy();
  };
  const v4 = createServer(count).listen(0, '127.0.0.1');
  await once(v4, 'listening');
  const port = (v4.address() as AddressInfo).port;
  const v6 = createServer(count);
  // The same port on ::1, so `localhost` that resolves there first would be seen too; a host without IPv6 has only the one.
  const v6Listening = await new Promise<boolean>((resolve) => {
    v6.once('error', () => resolve(false));
    v6.listen(port, '::1', () => resolve(true));
  });
  return {
    port,
    get connections() {
      return connections;
    },
    async close() {
      await new Promise((resolve) => v4.close(resolve));
      if (v6Listening) await new Promise((resolve) => v6.close(resolve));
    },
  };
}
