// The API's dated versions and the operations a newer version removes, as data. The version header's plugin
// (http/api-version.ts) serves by them, the OpenAPI document marks by them, and the breaking-change test holds them
// against the documents released under each date (packages/store/api-versions/).

/** The request header naming a version; every answer under /api/v1 carries the version that served it. */
export const API_VERSION_HEADER = 'X-AC-Api-Version';

export interface ApiVersion {
  /** YYYY-MM-DD: a request naming this date, or a later one before the next version, is served by this version. */
  date: string;
  /** One line for the changelog, in the API's words. */
  summary: string;
}

/** Oldest first. A new date is added here, then `npm run api:release -- <date>` commits its document. */
export const API_VERSIONS: readonly ApiVersion[] = [
  {
    date: '2026-11-01',
    summary: 'The first dated version: the API under /api/v1 as it stood, every request without the header served by it.',
  },
];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * An operation a version removes. Requests naming an earlier version are still served, with Deprecation (RFC 9745,
 * the removing version's date) and Sunset (RFC 8594); requests naming that version or a later one, and every request
 * once the sunset has passed, get 410. The route stays in the code and in the document, marked deprecated, until the
 * sunset; only then may it go, which the breaking-change check allows.
 */
export interface Removal {
  method: HttpMethod;
  /** The path as the OpenAPI document writes it, under /api/v1: `/products/{id}/filled`. */
  path: string;
  /** The date of the version that no longer has it (one of API_VERSIONS). */
  removedIn: string;
  /** YYYY-MM-DD, after which no version serves it. */
  sunset: string;
  /** What to call instead, for the error text and the document. */
  instead: string;
}

export const REMOVALS: readonly Removal[] = [];

/**
 * A field a version removes from a resource's records. Requests naming that version or a later one, and every request
 * once the sunset has passed, get the records without it (single records, list pages, write answers); requests naming
 * an earlier version still get it, and the answer carries Deprecation and Sunset as for a removed operation.
 */
export interface FieldRemoval {
  /** The resource whose records lose the field, as the registry names it: `products`. */
  resource: string;
  field: string;
  /** The date of the version that no longer has it (one of API_VERSIONS). */
  removedIn: string;
  /** YYYY-MM-DD, after which no version gets it. */
  sunset: string;
}

export const FIELD_REMOVALS: readonly FieldRemoval[] = [];

export const NEWEST_API_VERSION = API_VERSIONS[API_VERSIONS.length - 1]?.date ?? '';

/** Midnight UTC of a YYYY-MM-DD that names a real day, else undefined. */
export function dayStart(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const time = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === text ? time : undefined;
}
