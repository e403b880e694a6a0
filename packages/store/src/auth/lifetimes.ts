// How long each credential lives. Codes are short because they travel in a redirect URL.
export const lifetimes = {
  authorizationCodeMs: 2 * 60_000,
  accessTokenMs: 60 * 60_000,
  refreshTokenMs: 30 * 24 * 3600_000,
  sessionMs: 8 * 3600_000,
} as const;

export type Lifetimes = { [K in keyof typeof lifetimes]: number };
