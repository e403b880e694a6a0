// The demo's own webhook receiver, run inside the lab next to the service: HTTPS on the lab's loopback
// with the certificate the demo made (the service trusts it through [WATCH] ca_file). Each alert it
// takes becomes one JSON line on stdout, which the demo prints as it arrives.
// usage: alert-receiver.ts PORT CERT KEY
import { readFileSync } from 'node:fs';
import https from 'node:https';

const [port, certFile, keyFile] = process.argv.slice(2);
const server = https.createServer({ cert: readFileSync(certFile ?? ''), key: readFileSync(keyFile ?? '') }, (request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let alert: unknown;
    try {
      alert = JSON.parse(body);
    } catch {
      response.writeHead(400).end();
      return;
    }
    process.stdout.write(`${JSON.stringify({ path: request.url, alert })}\n`);
    response.writeHead(200).end();
  });
});
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
