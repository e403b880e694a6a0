// A result a method has already serialised: the response carries its text as it is, so a big answer
// that a method keeps between calls (get_batch_job_result's 10,000 ids) is not serialised again.
import type { Response } from './envelope.ts';

export class JsonText {
  readonly text: string;

  /** `text` must be valid JSON; it is not parsed again. */
  constructor(text: string) {
    this.text = text;
  }
}

/** The response as JSON text, with a JsonText result spliced in. */
export function serializeResponse(response: Response): string {
  if (!('result' in response) || !(response.result instanceof JsonText)) return JSON.stringify(response);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":${response.result.text}}`;
}
