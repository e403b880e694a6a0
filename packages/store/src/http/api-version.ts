// X-AC-Api-Version: a request names the version it was written for by date (default the newest), and every
// answer under the API prefix says which version served it. An operation a newer version removed is served to
// earlier versions with Deprecation and Sunset, and is 410 for the others and for everyone after its sunset. A field a
// newer version removed is left out of the answers of the others and of everyone after its sunset, and served to
// earlier versions with the same two headers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../model/api-error.ts';
import {
  API_VERSION_HEADER,
  API_VERSIONS,
  FIELD_REMOVALS,
  REMOVALS,
  dayStart,
  type ApiVersion,
  type FieldRemoval,
  type Removal,
} from '../model/api-versions.ts';
import { resourceNamed } from '../model/registry.ts';
import { withoutFields } from './field-removals.ts';

export interface ApiVersionOptions {
  apiPrefix: string;
  versions?: readonly ApiVersion[];
  removals?: readonly Removal[];
  fieldRemovals?: readonly FieldRemoval[];
  now?: () => number;
}

/** `/products/{id}` and Fastify's `/api/v1/products/:id` alike: parameters blanked, so names need not agree. */
function routeShape(path: string): string {
  return path.replace(/\{[^}]+\}|:[^/]+/g, '{}');
}

/** RFC 9745: a structured-field Date; RFC 8594: an HTTP-date. */
function markDeprecated(reply: FastifyReply, removedIn: string, sunset: string): void {
  void reply
    .header('deprecation', `@${Math.floor((dayStart(removedIn) ?? 0) / 1000)}`)
    .header('sunset', new Date(dayStart(sunset) ?? 0).toUTCString());
}

/** Why a field removal cannot be served by, or undefined when it can. */
function fieldRemovalMistake(removal: FieldRemoval, versions: readonly ApiVersion[]): string | undefined {
  const name = `the removal of ${removal.resource}.${removal.field}`;
  if (!versions.some((v) => v.date === removal.removedIn) || dayStart(removal.sunset) === undefined || removal.sunset <= removal.removedIn)
    return `${name} needs removedIn among the versions and a later sunset date`;
  let fields: Record<string, unknown>;
  try {
    fields = resourceNamed(removal.resource).fields;
  } catch {
    return `${name} names no declared resource`;
  }
  return removal.field in fields ? undefined : `${name} names no field of ${removal.resource}`;
}

/** The version a header value names: the newest one dated on or before it. Throws a 400 naming the versions otherwise. */
export function resolveVersion(header: string | string[] | undefined, versions: readonly ApiVersion[]): ApiVersion {
  const newest = versions[versions.length - 1];
  if (newest === undefined) throw new Error('no API version is declared');
  if (header === undefined) return newest;
  const known = versions.map((v) => v.date).join(', ');
  const text = Array.isArray(header) ? header.join(', ') : header.trim();
  const day = dayStart(text);
  if (day === undefined)
    throw new ApiError(400, `${API_VERSION_HEADER} must be one date as YYYY-MM-DD, not ${JSON.stringify(text)}; the versions are ${known}`);
  const version = versions.findLast((v) => (dayStart(v.date) ?? Infinity) <= day);
  if (version === undefined)
    throw new ApiError(400, `${API_VERSION_HEADER} ${text} is before the first version; the versions are ${known}`);
  return version;
}

export const apiVersion = fp(
  (app: FastifyInstance, options: ApiVersionOptions) => {
    const versions = options.versions ?? API_VERSIONS;
    const now = options.now ?? Date.now;
    const declared = options.removals ?? REMOVALS;
    // A mistake in the data would otherwise refuse (or serve) an operation quietly. Rejected, not thrown: the start fails.
    const wrong = declared.find(
      (r) => !versions.some((v) => v.date === r.removedIn) || dayStart(r.sunset) === undefined || r.sunset <= r.removedIn,
    );
    if (wrong !== undefined)
      return Promise.reject(
        new Error(`the removal of ${wrong.method} ${wrong.path} needs removedIn among the versions and a later sunset date`),
      );
    const fieldRemovals = options.fieldRemovals ?? FIELD_REMOVALS;
    const fieldMistake = fieldRemovals.map((r) => fieldRemovalMistake(r, versions)).find((m) => m !== undefined);
    if (fieldMistake !== undefined) return Promise.reject(new Error(fieldMistake));
    const fieldsByResource = Map.groupBy(fieldRemovals, (r) => r.resource);
    const removals = new Map(declared.map((r) => [`${r.method} ${routeShape(options.apiPrefix + r.path)}`, r]));
    const underPrefix = (request: FastifyRequest): boolean => {
      const url = request.url;
      return url === options.apiPrefix || url.startsWith(`${options.apiPrefix}/`) || url.startsWith(`${options.apiPrefix}?`);
    };

    app.addHook('onRequest', (request, reply, done) => {
      if (!underPrefix(request)) {
        done();
        return;
      }
      try {
        answerAs(request, reply);
        done();
      } catch (error) {
        done(error as Error);
      }
    });

    function answerAs(request: FastifyRequest, reply: FastifyReply): void {
      const version = resolveVersion(request.headers[API_VERSION_HEADER.toLowerCase()], versions);
      void reply.header(API_VERSION_HEADER, version.date);
      const route = request.routeOptions.url;
      const removal = route === undefined || removals.size === 0 ? undefined : removals.get(`${request.method} ${routeShape(route)}`);
      if (removal !== undefined) {
        const sunset = dayStart(removal.sunset) ?? 0;
        const removedIn = dayStart(removal.removedIn) ?? 0;
        const operation = `${removal.method} ${removal.path}`;
        if (now() >= sunset)
          throw new ApiError(
            410,
            `${operation} was removed in version ${removal.removedIn} and its sunset, ${removal.sunset}, has passed; ${removal.instead}`,
          );
        if ((dayStart(version.date) ?? 0) >= removedIn)
          throw new ApiError(
            410,
            `${operation} is not in version ${version.date} (removed in ${removal.removedIn}); ${removal.instead}. Until ${removal.sunset} it is served to a request naming an earlier version in ${API_VERSION_HEADER}`,
          );
        markDeprecated(reply, removal.removedIn, removal.sunset);
      }
    }

    // At the end of the answer, so every way a record is sent (an object, the database's JSON text, the response
    // cache's bytes, an Idempotency-Key's replay) is shaped alike. Registered before the cache's hook, so what the
    // cache keeps is already shaped for the version that asked (the version is part of its key).
    if (fieldsByResource.size > 0)
      app.addHook('onSend', (request, reply, payload, done) => {
        const config = request.routeOptions.config;
        const list = config.lists ?? config.resource;
        const declared = list === undefined || reply.statusCode >= 300 ? undefined : fieldsByResource.get(list);
        const served = reply.getHeader(API_VERSION_HEADER);
        if (declared === undefined || typeof served !== 'string' || list === undefined) {
          done(null, payload);
          return;
        }
        const asked = dayStart(served) ?? 0;
        const gone = declared.filter((r) => asked >= (dayStart(r.removedIn) ?? 0) || now() >= (dayStart(r.sunset) ?? 0));
        const kept = declared.filter((r) => !gone.includes(r));
        // The earliest removal still ahead is the one the caller must act on first.
        const first = kept.toSorted((a, b) => a.removedIn.localeCompare(b.removedIn))[0];
        if (first !== undefined) markDeprecated(reply, first.removedIn, first.sunset);
        if (gone.length === 0) {
          done(null, payload);
          return;
        }
        const shaped = withoutFields(
          payload,
          list,
          gone.map((r) => r.field),
        );
        // A content ETag the route made describes the untrimmed body.
        if (shaped.changed) request.bodyEtag = undefined;
        done(null, shaped.payload);
      });
    return Promise.resolve();
  },
  { name: 'api-version' },
);
