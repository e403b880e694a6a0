// The database cannot be reached right now (its server restarting or failing over, a connection it dropped
// mid-query): nothing the client sent is wrong, so it gets 503 with Retry-After rather than 500.

// Node's socket errors, mysql2's lost connection.
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
]);
// PostgreSQL: class 08 (connection exception), admin/crash shutdown, cannot connect now (starting up or in recovery),
// too many connections, and a write reaching a standby (read-only transaction) while a failover settles.
const POSTGRES_CODES = new Set(['57P01', '57P02', '57P03', '53300', '25006']);
// MariaDB: server shutdown, connection killed, too many connections; client: cannot connect, gone away, lost during query.
const MYSQL_ERRNOS = new Set([1053, 1927, 1040, 2002, 2003, 2006, 2013]);
// node-postgres says these without a code.
const POSTGRES_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error/,
];

export function isUnavailableDatabase(error: unknown): boolean {
  if (error instanceof AggregateError) return error.errors.some(isUnavailableDatabase);
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno, message } = error as { code?: unknown; errno?: unknown; message?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || POSTGRES_CODES.has(code) || code.startsWith('08'))) return true;
  if (typeof errno === 'number' && MYSQL_ERRNOS.has(errno)) return true;
  return typeof message === 'string' && POSTGRES_MESSAGES.some((pattern) => pattern.test(message));
}
