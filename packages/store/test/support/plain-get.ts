// A plain-HTTP GET to the store's loopback address with the headers given (a Host of any shape among them).
import { request as httpRequest } from 'node:http';

export function plainGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; location: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
