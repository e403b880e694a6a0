/** A moment as the auth tables store it: ISO 8601 UTC text. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
