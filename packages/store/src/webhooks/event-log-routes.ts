// Our extension (not the platform's): `GET /events`, the events webhooks carry, oldest first, for a client to catch
// up on what it missed. Each event is listed only to a caller with the read scope of the records it carries; the
// others are left out, never refused as a whole.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { allows } from '../auth/scopes.ts';
import { publicOrigin } from '../http/allowed-hosts.ts';
import type { StoreDatabase } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import { isEventName, type EventName } from '../model/event-types.ts';
import { eventSequencerOf } from './event-sequencer.ts';
import {
  DEFAULT_EVENT_COUNT,
  MAX_EVENT_COUNT,
  eventCursors,
  eventGroup,
  lastSeq,
  loggedEvents,
  notACursor,
  readEvents,
  type LoggedEvent,
} from './event-log.ts';

export interface EventsAnswer {
  events: LoggedEvent[];
  /** Pass as `after` for what follows; the same cursor again when nothing newer was there yet. */
  next: string | null;
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ApiError(400, `${name}: give it once`);
  return value;
}

function typesOf(text: string | undefined): readonly EventName[] {
  if (text === undefined || text.trim() === '') return loggedEvents;
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !isEventName(name) || !loggedEvents.includes(name));
  if (unknown.length > 0)
    throw new ApiError(
      400,
      `types: ${unknown.slice(0, 5).join(', ').slice(0, 200)} not in the event log; it holds ${loggedEvents.join(', ')}`,
    );
  return [...new Set(names)] as EventName[];
}

function countOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_EVENT_COUNT;
  if (!/^[0-9]{1,4}$/.test(text) || Number(text) < 1 || Number(text) > MAX_EVENT_COUNT)
    throw new ApiError(400, `count: a whole number from 1 to ${MAX_EVENT_COUNT}`);
  return Number(text);
}

function nextUrl(request: FastifyRequest, next: string): string {
  const original = request.originalUrl;
  const queryAt = original.indexOf('?');
  const path = queryAt === -1 ? original : original.slice(0, queryAt);
  const kept =
    queryAt === -1
      ? []
      : original
          .slice(queryAt + 1)
          .split('&')
          .filter((part) => part !== '' && !/^after(=|$)/.test(part));
  return `${publicOrigin(request)}${path}?${[...kept, `after=${next}`].join('&')}`;
}

export function eventLogRoutes(app: FastifyInstance, options: { database: StoreDatabase; authKey: Uint8Array }): Promise<void> {
  const cursors = eventCursors(options.authKey);
  app.get('/events', async (request, reply): Promise<EventsAnswer> => {
    const query = request.query as Record<string, unknown>;
    const afterText = single(query, 'after');
    const after = afterText === undefined ? 0 : cursors.parse(afterText);
    const asked = typesOf(single(query, 'types'));
    const count = countOf(single(query, 'count'));
    const scopes = request.principal?.scopes ?? [];
    const readable = asked.filter((event) => allows(scopes, eventGroup(event), false));
    // Rows committed before this call are numbered first, so a client reads its own writes. Should that fail
    // (a busy database), what is read is still in order: only newer events wait for the next call.
    await eventSequencerOf(options.database)
      .settle()
      .catch((error: unknown) => request.log.warn({ err: error }, 'numbering the event log failed'));
    // Positions only grow, so a cursor past the end was not made by this log (one made before the database was
    // replaced, say): taking it would skip every event up to it.
    if (afterText !== undefined && after > (await lastSeq(options.database)))
      throw notACursor(afterText, 'is past the end of this event log');
    const { events, last } = await readEvents(options.database, after, readable, count, cursors);
    // Behind the last event listed, or where the caller stood when there was none yet.
    const next = last !== undefined ? cursors.cursor(last) : afterText === undefined ? null : cursors.cursor(after);
    void reply.header('cache-control', 'no-store');
    if (next !== null) void reply.header('link', `<${nextUrl(request, next)}>; rel="next"`);
    return { events, next };
  });
  return Promise.resolve();
}
