export class DatabaseUnreachableError extends Error {
  constructor(what: string, cause: unknown) {
    super(`Cannot open ${what}: ${describeCause(cause)}`, { cause });
    this.name = 'DatabaseUnreachableError';
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof AggregateError && cause.errors.length > 0) return describeCause(cause.errors[0]);
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const message = cause.message !== '' ? cause.message : typeof code === 'string' ? code : cause.name;
    return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
  }
  return String(cause);
}
