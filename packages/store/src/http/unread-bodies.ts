// A request answered before its body was read to the end (too large, not allowed, an upload over its limit):
// Node and Fastify would close the connection right after the answer, and a client still sending is then reset
// before it reads it. Instead the rest of the body is read and dropped, for a few seconds and some megabytes at
// most, so the caller gets its answer; then the connection is closed if the caller asked for that (or it went
// past either bound), or serves the caller's next request.
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const LINGER_MS = 5000;
const LINGER_BYTES = 64 * 1024 * 1024;

export const unreadBodies = fp(
  (app: FastifyInstance) => {
    /** Requests answered mid-body whose caller asked for the connection to close. */
    const closeAfter = new WeakSet<FastifyRequest>();
    app.addHook('onSend', (request, reply, payload, done) => {
      if (!request.raw.complete) {
        // Fastify marks a body it refused mid-way 'connection: close' because more may come; that rest is read and
        // dropped below, so only a caller that asked for the close gets it. The mark goes: a client told nothing
        // keeps the connection, and one told to close while we still read would be reset before it read the answer.
        if (!reply.raw.shouldKeepAlive) closeAfter.add(request);
        reply.removeHeader('connection');
        // Kept open (Node would end it with the answer) until the body is read, or a bound above is passed.
        reply.raw.shouldKeepAlive = true;
      }
      done(null, payload);
    });
    app.addHook('onResponse', (request, _reply, done) => {
      const raw = request.raw;
      // An in-process call (app.inject, the demo seed) has no connection to keep or close, nor a `complete` flag.
      if (!raw.complete && !raw.destroyed && raw.socket instanceof Socket) {
        let dropped = 0;
        const timer = setTimeout(() => raw.socket.destroy(), LINGER_MS);
        timer.unref();
        raw.on('data', (chunk: Buffer) => {
          dropped += chunk.length;
          if (dropped > LINGER_BYTES) raw.socket.destroy();
        });
        raw.once('end', () => {
          if (closeAfter.has(request)) raw.socket.end();
        });
        raw.once('close', () => clearTimeout(timer));
        raw.resume();
      }
      done();
    });
    return Promise.resolve();
  },
  { name: 'unread-bodies' },
);
