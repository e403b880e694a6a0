// Maps a database's own constraint error to a kind, the same on SQLite, PostgreSQL and MariaDB.

export type ConstraintKind = 'foreign-key' | 'unique';

export function constraintViolation(error: unknown): ConstraintKind | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errno, message } = error as { code?: unknown; errno?: unknown; message?: unknown };
  // PostgreSQL SQLSTATE, MariaDB errno, SQLite extended result code / text.
  if (code === '23503' || errno === 1451 || errno === 1452 || errno === 787 || /FOREIGN KEY constraint failed/.test(String(message))) {
    return 'foreign-key';
  }
  if (code === '23505' || errno === 1062 || errno === 2067 || /UNIQUE constraint failed/.test(String(message))) return 'unique';
  return undefined;
}
