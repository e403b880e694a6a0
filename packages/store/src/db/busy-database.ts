// A database too busy to take this request now (a lock held past the wait limit, or this transaction chosen as a
// deadlock's victim and rolled back): the client may retry.

export function isBusyDatabase(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errcode, errno } = error as { code?: unknown; errcode?: unknown; errno?: unknown };
  // SQLite SQLITE_BUSY / SQLITE_LOCKED (and their extended codes), PostgreSQL lock_not_available, deadlock_detected and
  // serialization_failure, MariaDB lock wait timeout and deadlock.
  return (
    (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && ((errcode & 0xff) === 5 || (errcode & 0xff) === 6)) ||
    code === '55P03' ||
    code === '40P01' ||
    code === '40001' ||
    errno === 1205 ||
    errno === 1213
  );
}
