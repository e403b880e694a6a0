// HTTP caching of resource reads: Cache-Control (private, max-age per resource), Expires, Last-Modified and
// ETag on every GET 200; 304 for If-None-Match / If-Modified-Since; answers from the server-side cache
// unless the client sends Cache-Control: no-cache; and writes drop what they change.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { API_VERSION_HEADER } from '../model/api-versions.ts';
import { resourceNamed } from '../model/registry.ts';
import { resourceRouteOf, type ResourceRouteConfig } from '../model/route-config.ts';
import type { CachedResponse, ResponseCache, TagSnapshot } from './response-cache.ts';

export interface HttpCachingOptions {
  cache: ResponseCache;
  now?: () => number;
  /** Names the version of an answer a caller gets (auth shows encrypted fields only to some), so one caller's copy never reaches another. */
  variant?: (request: FastifyRequest) => string;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface PendingRead {
  key: string;
  snapshot: TagSnapshot;
  maxAge: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** A read the cache may keep once answered: its key, and the tag versions it started from. */
    cacheable: PendingRead | undefined;
    /** The answer's ETag when the route made one from its content more cheaply than by hashing the body. */
    bodyEtag: string | undefined;
  }
}

const tagsByResource = new Map<string, readonly string[]>();

/**
 * A resource's reads depend on its table and its nested collections' tables; its writes can change all of them
 * (links, cascades). Tags are tables, so declarations that share one (`product_nested_variant`) see each other's writes.
 */
export function tagsOf(resourceName: string): readonly string[] {
  let tags = tagsByResource.get(resourceName);
  if (tags === undefined) {
    const resource = resourceNamed(resourceName);
    tags = [...new Set([resource.table, ...Object.values(resource.nested).map((n) => resourceNamed(n.resource).table)])];
    tagsByResource.set(resourceName, tags);
  }
  return tags;
}

/** What a read route's answer comes from: its resource, and any others it names (/inventory reads products). */
function readTags(config: ResourceRouteConfig): readonly string[] {
  return config.reads === undefined ? tagsOf(config.resource) : [...new Set([config.resource, ...config.reads].flatMap(tagsOf))];
}

/** What a write route may change: its resource, and any others it names (placing an order writes several). */
function writeTags(config: ResourceRouteConfig): readonly string[] {
  return config.touches === undefined ? tagsOf(config.resource) : [...new Set([config.resource, ...config.touches].flatMap(tagsOf))];
}

const routeResource = resourceRouteOf;

function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/**
 * RFC 9110 13.1.3: If-Modified-Since in whole seconds, as HTTP dates are, so the Last-Modified a client got validates
 * its copy. `lastModified` is when the answer's records last changed; a change in a second whose date was already
 * shown is dated a second later (ResponseCache), so no copy older than a change is validated. A date later than now
 * is not one this server gave, and is ignored.
 */
function notModified(request: FastifyRequest, etag: string, lastModified: number, now: number): boolean {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return etagMatches(ifNoneMatch, etag);
  const since = Math.floor(Date.parse(request.headers['if-modified-since'] ?? '') / 1000) * 1000;
  return Number.isFinite(since) && since <= now && lastModified <= since;
}

export const httpCaching = fp(
  (app: FastifyInstance, options: HttpCachingOptions) => {
    const { cache } = options;
    const now = options.now ?? Date.now;
    // A property on the request rather than a WeakMap entry: cheaper to set, and nothing for the GC to trace.
    if (!app.hasRequestDecorator('cacheable')) app.decorateRequest('cacheable', undefined);
    if (!app.hasRequestDecorator('bodyEtag')) app.decorateRequest('bodyEtag', undefined);

    function cachingHeaders(reply: FastifyReply, entry: CachedResponse, maxAge: number): void {
      void reply.headers({
        'cache-control': `private, max-age=${maxAge}`,
        expires: new Date(now() + maxAge * 1000).toUTCString(),
        'last-modified': new Date(cache.shownLastModified(entry.tags, entry.lastModified)).toUTCString(),
        etag: entry.etag,
        vary: `X-AC-Auth-Token, ${API_VERSION_HEADER}`,
      });
    }

    // Runs after authentication (registered later), so a cached body never reaches a caller who may not read it.
    // Callback-style hooks: nothing here waits, so no promise needs settling per request.
    app.addHook('preHandler', (request, reply, done) => {
      const config = routeResource(request);
      if (request.method !== 'GET' || config === undefined || config.alwaysFresh === true) {
        done();
        return;
      }
      // The version that serves the request (set by the version plugin's onRequest): versions may differ in fields.
      const version = reply.getHeader(API_VERSION_HEADER);
      const key = `${options.variant?.(request) ?? ''} ${typeof version === 'string' ? version : ''} ${request.protocol}://${request.host}${request.originalUrl}`;
      const maxAge = resourceNamed(config.resource).maxAgeSeconds;
      const noCache = /\bno-cache\b/i.test(request.headers['cache-control'] ?? '') || /\bno-cache\b/i.test(request.headers.pragma ?? '');
      const hit = noCache ? undefined : cache.get(key);
      if (hit === undefined) {
        request.cacheable = { key, snapshot: cache.snapshot(readTags(config)), maxAge };
        done();
        return;
      }
      cachingHeaders(reply, hit, maxAge);
      if (notModified(request, hit.etag, hit.lastModified, now())) void reply.code(304).send();
      else void reply.type('application/json; charset=utf-8').send(hit.body);
    });

    app.addHook('onSend', (request, reply, payload, done) => {
      done(null, afterHandler(request, reply, payload));
    });

    function afterHandler(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
      const config = routeResource(request);
      if (config === undefined || reply.statusCode >= 300) {
        if (reply.statusCode >= 400) void reply.header('cache-control', 'no-store');
        return payload;
      }
      if (WRITES.has(request.method) || config.alwaysFresh === true) {
        // Dropped before the answer leaves, so the writer's next read cannot be stale.
        cache.invalidate(writeTags(config));
        void reply.header('cache-control', 'no-store');
        return payload;
      }
      if (request.method !== 'GET') return payload;
      const fresh = request.cacheable;
      if (fresh === undefined || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
      const entry = cache.store(fresh.key, payload, fresh.snapshot, fresh.maxAge, request.bodyEtag);
      cachingHeaders(reply, entry, fresh.maxAge);
      if (notModified(request, entry.etag, entry.lastModified, now())) {
        void reply.code(304);
        return '';
      }
      // The cache holds the body's UTF-8 bytes (a text answer encoded once): sending them spares encoding it again.
      return entry.body;
    }
  },
  { name: 'http-caching' },
);
