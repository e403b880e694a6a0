// GET and POST /sandbox/clock: a sandbox store's time, and moving it forward. A store outside sandbox mode
// answers 403: its clock is real time.
import type { FastifyInstance } from 'fastify';
import type { StoreDatabase } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import { DEFAULT_EVENT_LOG_DAYS, pruneEventLog } from '../webhooks/event-log.ts';
import { parseDuration, type SandboxClock } from '../db/sandbox-clock.ts';

export interface SandboxRoutesOptions {
  /** Undefined outside sandbox mode. */
  clock: SandboxClock | undefined;
  database: StoreDatabase;
  /** The event log's retention, purged at once when time moves rather than at the next hourly purge. */
  eventLogDays?: number | undefined;
}

export const ADVANCE_PATTERN = '^([0-9]+(ms|s|m|h|d|w))+$';

const advanceBody = {
  type: 'object',
  required: ['advance'],
  additionalProperties: false,
  properties: {
    advance: {
      type: 'string',
      pattern: ADVANCE_PATTERN,
      description: 'how far to move time forward: 90s, 12h, 30d, 1d12h (units ms, s, m, h, d, w)',
    },
  },
} as const;

function clockOf(options: SandboxRoutesOptions): SandboxClock {
  if (options.clock === undefined)
    throw new ApiError(
      403,
      'This store is not in sandbox mode: its clock is real time and cannot be moved (a sandbox is served with --sandbox)',
    );
  return options.clock;
}

const shown = (clock: SandboxClock) => ({ now: new Date(clock.now()).toISOString(), offset_ms: clock.offsetMs() });

export function sandboxRoutes(app: FastifyInstance, options: SandboxRoutesOptions): Promise<void> {
  app.get('/sandbox/clock', () => shown(clockOf(options)));
  app.post<{ Body: { advance: string } }>('/sandbox/clock', { schema: { body: advanceBody } }, async (request) => {
    const clock = clockOf(options);
    const ms = parseDuration(request.body.advance);
    if (ms === undefined) throw new ApiError(400, `advance ${JSON.stringify(request.body.advance)} is no duration such as 30d or 1d12h`);
    await clock.advance(ms);
    while ((await pruneEventLog(options.database, options.eventLogDays ?? DEFAULT_EVENT_LOG_DAYS, clock.now())) > 0);
    return shown(clock);
  });
  return Promise.resolve();
}
