// The plain-HTTP port: it only ever redirects to HTTPS, whatever the method or path, and only for a host name the
// store answers to (allowed-hosts.ts); any other gets the store's error, never a Location elsewhere.
import { createServer, type Server } from 'node:http';
import { errorBody } from '../model/api-error.ts';
import { requestHost, type HostRules } from './allowed-hosts.ts';
import { httpsLocation } from './https-only.ts';

export function createRedirectServer(httpsPort: number, rules: HostRules): Server {
  return createServer((request, response) => {
    const host = requestHost(request.headers.host ?? '', rules, request.socket.localAddress, request.socket.localPort);
    if (host instanceof Error) {
      const body = JSON.stringify(errorBody(host.statusCode, host.message));
      response.writeHead(host.statusCode, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        'cache-control': 'no-store',
        connection: 'close',
      });
      response.end(body);
    } else {
      response.writeHead(308, {
        location: httpsLocation(host.name, request.url ?? '/', httpsPort),
        'content-length': '0',
        connection: 'close',
      });
      response.end();
    }
    request.resume();
  });
}
