// A database too busy to take this request now (a lock held past the wait limit): the client may retry.

export function isBusyDatabase(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errcode, errno } = error as { code?: unknown; errcode?: unknown; errno?: unknown };
  // SQLite SQLITE_BUSY / SQLITE_LOCKED (and their extended codes), PostgreSQL lock_not_available, MariaDB lock wait timeout.
  return (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && ((errcode & 0xff) === 5 || (errcode & 0xff) === 6)) || code === '55P03' || errno === 1205;
}
