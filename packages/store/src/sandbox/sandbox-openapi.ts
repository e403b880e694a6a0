// The sandbox clock's operations in the OpenAPI document.
import { ADVANCE_PATTERN } from './sandbox-routes.ts';

const TAG = 'sandbox';
const security = [{ token: [] }];
const error = { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
const clock = {
  description: 'The sandbox time',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['now', 'offset_ms'],
        properties: {
          now: { type: 'string', format: 'date-time' },
          offset_ms: { type: 'integer', minimum: 0, description: 'how far the clock is ahead of real time' },
        },
      },
    },
  },
};

export const sandboxTag = {
  name: TAG,
  description:
    "Our extension: a sandbox store's clock, moved forward so expiries, retention and retry schedules play out at once; 403 outside sandbox mode",
};

export function sandboxPaths(): Record<string, unknown> {
  return {
    '/sandbox/clock': {
      get: { tags: [TAG], security, summary: "The sandbox store's time", responses: { 200: clock, 401: error, 403: error, 429: error } },
      post: {
        tags: [TAG],
        security,
        summary: "Move the sandbox store's time forward: tokens, OAuth codes, idempotency keys, the event log and bulk links age by it",
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['advance'],
                additionalProperties: false,
                properties: { advance: { type: 'string', pattern: ADVANCE_PATTERN } },
              },
              example: { advance: '30d' },
            },
          },
        },
        responses: { 200: clock, 400: error, 401: error, 403: error, 415: error, 429: error },
      },
    },
  };
}
