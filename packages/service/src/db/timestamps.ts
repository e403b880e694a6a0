// Stored times are ISO 8601 UTC with milliseconds; the API shows two forms of them.

export function now(): string {
  return new Date().toISOString();
}

/** `YYYY-MM-DDThh:mm:ssZ`, the spec's timestamp. */
export function timestamp(stored: string): string {
  return `${stored.slice(0, 19)}Z`;
}

/** `Y-M-D H:M:S.ms`, the deprecated timestamp with fractional seconds. */
export function deprecatedTimestamp(stored: string): string {
  return `${stored.slice(0, 10)} ${stored.slice(11, 23)}`;
}

export function secondsAgo(seconds: number): string {
  return new Date(Date.now() - seconds * 1000).toISOString();
}
