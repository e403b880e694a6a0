// The plain-HTTP port: it only ever redirects to HTTPS, whatever the method or path.
import { createServer, type Server } from 'node:http';
import { httpsLocation } from './https-only.ts';

export function createRedirectServer(httpsPort: number): Server {
  return createServer((request, response) => {
    response.writeHead(308, { location: httpsLocation(request.headers.host, request.url ?? '/', httpsPort), 'content-length': '0', connection: 'close' });
    response.end();
    request.resume();
  });
}
