// GET /favicon.ico: the store's icon, so that a browser tab shows it and the log shows no 404 for it. A 32×32
// PNG (browsers take PNG bytes at this address), drawn here: the console's blue with a white shopping bag.
import { crc32, deflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

const SIZE = 32;
const BLUE = [0x0b, 0x57, 0xd0, 0xff];
const WHITE = [0xff, 0xff, 0xff, 0xff];
const CLEAR = [0, 0, 0, 0];

/** The colour of one pixel: a rounded blue square, a white bag body, and its white handle. */
function pixel(x: number, y: number): number[] {
  const corner = 6;
  const dx = Math.max(corner - x, x - (SIZE - 1 - corner), 0);
  const dy = Math.max(corner - y, y - (SIZE - 1 - corner), 0);
  if (dx * dx + dy * dy > corner * corner) return CLEAR;
  const body = x >= 8 && x <= 23 && y >= 12 && y <= 26;
  const handle = y >= 6 && y <= 12 && Math.abs(Math.hypot(x - 15.5, y - 12) - 4.5) < 1.2;
  return body || handle ? WHITE : BLUE;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

function png(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits per channel, RGBA, no interlace
  const rows = Buffer.concat(
    Array.from({ length: SIZE }, (_, y) => Buffer.from([0, ...Array.from({ length: SIZE }, (_, x) => pixel(x, y)).flat()])),
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function favicon(app: FastifyInstance): Promise<void> {
  const icon = png();
  app.get('/favicon.ico', { config: { notRateLimited: true } }, (_request, reply) =>
    reply.type('image/png').header('cache-control', 'public, max-age=86400').send(icon),
  );
  return Promise.resolve();
}
