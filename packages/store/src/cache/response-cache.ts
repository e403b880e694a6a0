// The server-side cache of GET responses. Each entry carries tags (the resources its body was read from);
// a write to a resource bumps its tag, which drops every entry that read it. A read that raced a write is
// not stored, because the tag versions it started with no longer hold.
import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export interface CachedResponse {
  /** UTF-8 bytes, encoded once rather than on every hit. */
  body: Buffer;
  etag: string;
  /** When its tags last changed: ms since the epoch, whole seconds, possibly one ahead (see `invalidateFromPeer`). */
  lastModified: number;
  tags: readonly string[];
  versions: readonly number[];
}

export interface TagSnapshot {
  tags: readonly string[];
  versions: readonly number[];
  lastModified: number;
}

export class ResponseCache {
  readonly #entries: LRUCache<string, CachedResponse>;
  readonly #versions = new Map<string, number>();
  readonly #changedAt = new Map<string, number>();
  /** The latest Last-Modified shown for an answer read from each tag. */
  readonly #shownAt = new Map<string, number>();
  readonly #startedAt: number;
  readonly #now: () => number;

  constructor(options: { maxEntries?: number; maxBytes?: number; now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#startedAt = wholeSeconds(this.#now());
    this.#entries = new LRUCache({
      max: options.maxEntries ?? 5000,
      maxSize: options.maxBytes ?? 64 * 1024 * 1024,
      sizeCalculation: (entry) => Math.max(1, entry.body.length),
      ttlAutopurge: false,
      perf: { now: () => this.#now() },
    });
  }

  /** The tags' current versions, and when any of them last changed. */
  snapshot(tags: readonly string[]): TagSnapshot {
    const lastModified = Math.max(this.#startedAt, ...tags.map((t) => this.#changedAt.get(t) ?? 0));
    return { tags, versions: tags.map((t) => this.#versions.get(t) ?? 0), lastModified };
  }

  get(key: string): CachedResponse | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (!this.#current(entry)) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /**
   * Stores a body read under `snapshot`, unless a write to one of its tags happened since. An entry lives
   * at most `ttlSeconds`, which bounds staleness from writes this instance never hears of.
   */
  store(key: string, answer: string | Buffer, snapshot: TagSnapshot, ttlSeconds: number, etag?: string): CachedResponse {
    const fresh = typeof answer === 'string' ? Buffer.from(answer, 'utf8') : answer;
    // A re-read (no-cache, or after a write elsewhere) usually finds the same bytes: their ETag is already known
    // (comparing bytes is a memcmp, far cheaper than hashing them). An ETag made from the content (`etag`) is kept
    // as made, so the same content always has the same one.
    const previous = this.#entries.peek(key, { allowStale: true });
    const same = previous !== undefined && previous.body.equals(fresh) ? previous : undefined;
    // The cached copy of the same bytes is kept, so the fresh one dies young instead of aging in the heap.
    const entry: CachedResponse = {
      body: same?.body ?? fresh,
      etag: etag ?? same?.etag ?? etagOf(fresh),
      lastModified: snapshot.lastModified,
      tags: snapshot.tags,
      versions: snapshot.versions,
    };
    if (this.#current(entry)) this.#entries.set(key, entry, { ttl: ttlSeconds * 1000 });
    return entry;
  }

  /** Called with the tags of every write made through this instance (to tell other instances). */
  onWrite: ((tags: readonly string[]) => void) | undefined;

  /** A write through this instance. */
  invalidate(tags: readonly string[]): void {
    this.invalidateFromPeer(tags);
    this.onWrite?.(tags);
  }

  /**
   * A write another instance reported. HTTP dates have whole seconds: when an answer read from a tag was already
   * shown this second's date, the change is dated a second later, so that date no longer validates (a 304) a copy
   * older than the change.
   */
  invalidateFromPeer(tags: readonly string[]): void {
    const at = wholeSeconds(this.#now());
    for (const tag of tags) {
      this.#versions.set(tag, (this.#versions.get(tag) ?? 0) + 1);
      const shown = this.#shownAt.get(tag) ?? 0;
      this.#changedAt.set(tag, shown >= at ? shown + 1000 : at);
    }
  }

  /** The Last-Modified an answer read from `tags` and changed at `lastModified` shows now: never in the future. */
  shownLastModified(tags: readonly string[], lastModified: number): number {
    const shown = Math.min(wholeSeconds(this.#now()), lastModified);
    for (const tag of tags) if ((this.#shownAt.get(tag) ?? 0) < shown) this.#shownAt.set(tag, shown);
    return shown;
  }

  #current(entry: CachedResponse): boolean {
    return entry.tags.every((tag, i) => (this.#versions.get(tag) ?? 0) === entry.versions[i]);
  }
}

function wholeSeconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

export function etagOf(body: Buffer): string {
  return `"${hash('sha256', body, 'base64url').slice(0, 27)}"`;
}
