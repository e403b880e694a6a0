// One line of an import, written as POST /{resource} writes a body: checked against its schema, encrypted fields
// encrypted, Validate* subscribers asked, then created or (with the id of an existing record) updated through the
// records, so events and webhooks go out as for a single write. Its result is a line of the result file.
import { MAX_BODY_DEPTH, nestsDeeper } from '../http/json-body.ts';
import { ApiError, errorBody, type ErrorBody } from '../model/api-error.ts';
import type { Row, StoreDatabase } from '../db/schema.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';
import { recordsOf } from '../records/records.ts';
import { encryptedFieldsOf } from '../records/row-shape.ts';
import { upsert } from '../resources/routes.ts';
import { validationMessages, type ReplyAsker } from '../webhooks/reply-events.ts';
import { validationOf } from '../webhooks/resource-events.ts';
import { lineProblems } from './line-validator.ts';
import type { NdjsonLine } from './ndjson-lines.ts';

/** The longest line taken, as the API takes a body of one record. */
export const MAX_LINE_BYTES = 1024 * 1024;

export type LineResult = { line: number; status_code: 200 | 201; id: number } | ({ line: number } & ErrorBody);

export interface LineOptions {
  encrypt: (plain: string) => string;
  /** Validate* events (ValidateProduct, ValidateCustomer); undefined where webhooks are off. */
  replies: ReplyAsker | undefined;
}

export type LineWriter = (line: NdjsonLine) => Promise<LineResult>;

export function lineWriter(database: StoreDatabase, resource: ResourceDeclaration, options: LineOptions): LineWriter {
  const records = recordsOf(database, resource);
  const encrypted = encryptedFieldsOf(resource);
  const validation = validationOf(resource.name);

  async function askValidators(body: Row): Promise<void> {
    if (validation === undefined || options.replies === undefined || !(await options.replies.subscribed(validation.event))) return;
    const current = typeof body.id === 'number' ? await records.get(body.id) : undefined;
    const candidate: Row = { ...current, ...body };
    for (const name of encrypted) delete candidate[name];
    const messages = validationMessages(await options.replies.ask(validation.event, { [validation.key]: candidate }));
    if (messages.length > 0) throw new ApiError(400, messages.join('; '));
  }

  async function write({ bytes, text }: NdjsonLine): Promise<{ created: boolean; id: number }> {
    if (text === undefined || bytes > MAX_LINE_BYTES) throw new ApiError(413, `The line is ${bytes} bytes; a line holds at most ${MAX_LINE_BYTES}`);
    const json = text.toString('utf8');
    // As the API refuses such a body: deeper, it parses, but writing it overflows the stack.
    if (nestsDeeper(json, MAX_BODY_DEPTH)) throw new ApiError(400, `The line nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`);
    let body: unknown;
    try {
      body = JSON.parse(json);
    } catch {
      throw new ApiError(400, 'The line is not valid JSON');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, `A line is one JSON object: a ${resource.singular} as POST /${resource.path} takes it`);
    const problems = lineProblems(resource, body);
    if (problems.length > 0) throw new ApiError(400, problems.join('; '));
    const record = body as Row;
    for (const name of encrypted) if (typeof record[name] === 'string' && record[name] !== '') record[name] = options.encrypt(record[name]);
    await askValidators(record);
    const { created, row } = await upsert(resource, records, record);
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
