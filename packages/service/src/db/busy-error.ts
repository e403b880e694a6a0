// A write that lost a lock to another process or transaction: nothing is wrong with the call, and the
// same call a moment later will most likely succeed, so the client is told so instead of "internal error".

/** SQLite's primary result codes SQLITE_BUSY and SQLITE_LOCKED (extended codes keep them in the low byte). */
const SQLITE_BUSY_CODES = new Set([5, 6]);
/** PostgreSQL: lock_not_available, deadlock_detected, serialization_failure. */
const POSTGRES_BUSY_STATES = new Set(['55P03', '40P01', '40001']);
/** MariaDB/MySQL: ER_LOCK_WAIT_TIMEOUT, ER_LOCK_DEADLOCK. */
const MYSQL_BUSY_ERRNOS = new Set([1205, 1213]);

export function isDatabaseBusy(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errcode, errno } = error as { code?: unknown; errcode?: unknown; errno?: unknown };
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') return SQLITE_BUSY_CODES.has(errcode & 0xff);
  if (typeof code === 'string' && POSTGRES_BUSY_STATES.has(code)) return true;
  return typeof errno === 'number' && MYSQL_BUSY_ERRNOS.has(errno);
}
