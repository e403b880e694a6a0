// One line of an import, written as POST /{resource} writes a body: checked against its schema, then through the
// records' write path (resources/record-writes.ts), so it is encrypted, checked, and its events and webhooks go out
// as for a single write. Its result is a line of the result file.
import { MAX_BODY_DEPTH, nestsDeeper } from '../http/json-body.ts';
import { ApiError, errorBody, type ErrorBody } from '../model/api-error.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';
import type { RecordWrites } from '../resources/record-writes.ts';
import type { NdjsonLine } from './ndjson-lines.ts';

/** The longest line taken, as the API takes a body of one record. */
export const MAX_LINE_BYTES = 1024 * 1024;

export type LineResult = { line: number; status_code: 200 | 201; id: number } | ({ line: number } & ErrorBody);

export interface LineOptions {
  /** The app's write path of records. */
  writes: RecordWrites;
}

export type LineWriter = (line: NdjsonLine) => Promise<LineResult>;

export function lineWriter(resource: ResourceDeclaration, options: LineOptions): LineWriter {
  async function write({ bytes, text }: NdjsonLine): Promise<{ created: boolean; id: number }> {
    if (text === undefined || bytes > MAX_LINE_BYTES)
      throw new ApiError(413, `The line is ${bytes} bytes; a line holds at most ${MAX_LINE_BYTES}`);
    const json = text.toString('utf8');
    // As the API refuses such a body: deeper, it parses, but writing it overflows the stack.
    if (nestsDeeper(json, MAX_BODY_DEPTH))
      throw new ApiError(400, `The line nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`);
    let body: unknown;
    try {
      body = JSON.parse(json);
    } catch {
      throw new ApiError(400, 'The line is not valid JSON');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw new ApiError(400, `A line is one JSON object: a ${resource.singular} as POST /${resource.path} takes it`);
    const { created, row } = await options.writes.upsertUnchecked(resource, body);
    return { created, id: Number(row.id) };
  }

  return async (line) => {
    try {
      const { created, id } = await write(line);
      return { line: line.number, status_code: created ? 201 : 200, id };
    } catch (error) {
      // Anything else (the database gone) stops the job rather than failing the line.
      if (!(error instanceof ApiError)) throw error;
      return { line: line.number, ...errorBody(error.statusCode, error.message) };
    }
  };
}
