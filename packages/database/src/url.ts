export type DialectName = 'sqlite' | 'postgres' | 'mysql';

export type DatabaseTarget = { dialect: 'sqlite'; path: string } | { dialect: 'postgres'; url: URL } | { dialect: 'mysql'; url: URL };

export const MEMORY = ':memory:';

/**
 * Accepted forms: `sqlite:<path>`, `sqlite::memory:`, `postgres://…` (or `postgresql://`),
 * `mysql://…` (or `mariadb://`).
 */
export function parseDatabaseUrl(text: string): DatabaseTarget {
  const trimmed = text.trim();
  if (trimmed === '') throw new DatabaseUrlError(text, 'the URL is empty');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    throw new DatabaseUrlError(text, 'it has no scheme; use sqlite:, postgres:// or mysql://');
  }
  if (scheme === 'sqlite') {
    const path = trimmed.slice('sqlite:'.length).replace(/^\/\/(?=\/|\.)/, '');
    if (path === '') throw new DatabaseUrlError(text, 'sqlite: needs a file path or :memory:');
    return { dialect: 'sqlite', path };
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new DatabaseUrlError(text, 'it is not a valid URL');
  }
  const database = url.pathname.replace(/^\//, '');
  if (scheme === 'postgres' || scheme === 'postgresql') {
    if (url.hostname === '') throw new DatabaseUrlError(text, 'the host is missing');
    return { dialect: 'postgres', url };
  }
  if (scheme === 'mysql' || scheme === 'mariadb') {
    if (url.hostname === '') throw new DatabaseUrlError(text, 'the host is missing');
    if (database === '') throw new DatabaseUrlError(text, 'the database name is missing');
    return { dialect: 'mysql', url };
  }
  throw new DatabaseUrlError(text, `the scheme "${scheme}:" is not supported; use sqlite:, postgres:// or mysql://`);
}

/** The URL with its password masked, for messages and logs. */
export function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return text;
  }
}

export class DatabaseUrlError extends Error {
  constructor(url: string, reason: string) {
    super(`Bad database URL "${redactUrl(url)}": ${reason}`);
    this.name = 'DatabaseUrlError';
  }
}
