// A result a method has already serialised: the response carries its bytes as they are, so a big
// answer that a method keeps between calls (get_batch_job_result's 10,000 ids) is neither serialised
// nor encoded nor copied again. As a string it would cost its 200 KB three times per call: joined,
// measured by Fastify (Buffer.byteLength flattens the joined string), and encoded again for the socket.
import type { Response } from './envelope.ts';

export class JsonText {
  readonly bytes: Buffer;

  /** `bytes` must be valid JSON in UTF-8; they are not parsed again. */
  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }
}

const CLOSE = Buffer.from('}');

/** The response as JSON: text, or with a JsonText result, the pieces of its bytes, to be written one after another. */
export function serializeResponse(response: Response): string | Buffer[] {
  if (!('result' in response) || !(response.result instanceof JsonText)) return JSON.stringify(response);
  return [Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":`), response.result.bytes, CLOSE];
}
