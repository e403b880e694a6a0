import { STATUS_CODES } from 'node:http';

/** An error the client caused or may see; its text goes out as `details`, so it never carries SQL or internals. */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(statusCode: number, details: string, headers: Record<string, string> = {}) {
    super(details);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.headers = headers;
  }
}

export interface ErrorBody {
  status_code: number;
  message: string;
  details: string;
}

export function errorBody(statusCode: number, details: string): ErrorBody {
  return { status_code: statusCode, message: STATUS_CODES[statusCode] ?? 'Error', details };
}
