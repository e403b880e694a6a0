// X-AC-Api-Version: a request names the version it was written for by date (default the newest), and every
// answer under the API prefix says which version served it. An operation a newer version removed is served to
// earlier versions with Deprecation and Sunset, and is 410 for the others and for everyone after its sunset.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../model/api-error.ts';
import { API_VERSION_HEADER, API_VERSIONS, REMOVALS, dayStart, type ApiVersion, type Removal } from '../model/api-versions.ts';

export interface ApiVersionOptions {
  apiPrefix: string;
  versions?: readonly ApiVersion[];
  removals?: readonly Removal[];
  now?: () => number;
}

/** `/products/{id}` and Fastify's `/api/v1/products/:id` alike: parameters blanked, so names need not agree. */
function routeShape(path: string): string {
  return path.replace(/\{[^}]+\}|:[^/]+/g, '{}');
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
        // RFC 9745: a structured-field Date; RFC 8594: an HTTP-date.
        void reply.header('deprecation', `@${Math.floor(removedIn / 1000)}`).header('sunset', new Date(sunset).toUTCString());
      }
    }
    return Promise.resolve();
  },
  { name: 'api-version' },
);
