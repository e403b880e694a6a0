// What a report shows besides its texts: each finding's tag and arguments, the queries each test case sent
// with the records each server answered, the DS records that would match the zone's keys, and while a test
// runs, what it is doing. Methods of our own, beside the reference's.
import {
  decodeMessage,
  dsDigest,
  keyTag,
  Name,
  rcodeNames,
  recordIs,
  recordToString,
  RRType,
  typeToString,
  type DnskeyData,
  type ResourceRecord,
} from '@app/dns';
import type { Kysely } from 'kysely';
import { findTest, resultEntries } from '../db/tests.ts';
import { parseActivity, readQueryLog, type LoggedQuery } from '../db/test-evidence.ts';
import type { ServiceSchema } from '../db/tables.ts';
import { timestamp } from '../db/timestamps.ts';
import { MethodError } from '../rpc/errors.ts';
import { method } from '../rpc/method.ts';
import { testId } from '../validation/data-types.ts';
import { object, optional, required, text } from '../validation/param-rules.ts';
import type { ServiceContext } from './context.ts';
// The web client reads this shape; it is declared there, beside the other answers it reads.
import type { QueryView } from '../shared/api-shapes.ts';

const HIDDEN_LEVELS = new Set(['DEBUG', 'DEBUG2', 'DEBUG3']);
/** The test case the engine files queries under while it sets up the zone, as it does findings of no test case. */
const NO_TESTCASE = 'UNSPECIFIED';
/** The digest types a registrar is asked for today: SHA-256, then SHA-384 (RFC 8624). */
const SUGGESTED_DIGESTS = [2, 4];

function viewOf(query: LoggedQuery): QueryView {
  const view: QueryView = {
    server: query.server,
    qname: query.qname,
    qtype: typeToString(query.qtype),
    transport: query.transport,
    ms: query.ms,
  };
  if (query.reply === undefined) return view;
  try {
    const reply = decodeMessage(Buffer.from(query.reply, 'base64'));
    const records = (list: ResourceRecord[]) => list.map((rr) => recordToString(rr));
    return {
      ...view,
      rcode: rcodeNames.get(reply.rcode) ?? String(reply.rcode),
      flags: [reply.aa ? 'aa' : '', reply.tc ? 'tc' : ''].filter(Boolean),
      answer: records(reply.answer),
      authority: records(reply.authority),
      additional: records(reply.additional),
    };
  } catch {
    return { ...view, malformed: true };
  }
}

/** DS records for the zone's key-signing keys (SEP flag) as its servers answered them, ready for a registrar. */
function dsSuggestion(
  domain: string,
  queries: readonly LoggedQuery[],
): { keytag: number; algorithm: number; digtype: number; digest: string; record: string }[] {
  const owner = Name.fromString(domain === '' ? '.' : domain);
  const keys = new Map<string, DnskeyData>();
  for (const query of queries) {
    if (query.qtype !== RRType.DNSKEY || query.reply === undefined) continue;
    let records: ResourceRecord[];
    try {
      records = decodeMessage(Buffer.from(query.reply, 'base64')).answer;
    } catch {
      continue;
    }
    for (const rr of records) {
      if (!recordIs(rr, RRType.DNSKEY) || !rr.name.equals(owner) || (rr.rdata.flags & 1) === 0) continue;
      keys.set(Buffer.from(rr.rdata.publicKey).toString('base64') + rr.rdata.algorithm, rr.rdata);
    }
  }
  return [...keys.values()].flatMap((key) =>
    SUGGESTED_DIGESTS.flatMap((digtype) => {
      const digest = dsDigest(owner, key, digtype);
      if (digest === undefined) return [];
      const hex = Buffer.from(digest).toString('hex').toUpperCase();
      const tag = keyTag(key);
      return [
        {
          keytag: tag,
          algorithm: key.algorithm,
          digtype,
          digest: hex,
          record: `${owner.toString()} IN DS ${tag} ${key.algorithm} ${digtype} ${hex}`,
        },
      ];
    }),
  );
}

/** What the stored query log holds, in figures: get_test_queries gives the queries themselves, by test case. */
function querySummary(queries: readonly LoggedQuery[]): { queries: number; servers: number; unanswered: number } {
  return {
    queries: queries.length,
    servers: new Set(queries.map((q) => q.server)).size,
    unanswered: queries.filter((q) => q.reply === undefined).length,
  };
}

async function finished(db: Kysely<ServiceSchema>, id: string) {
  const row = await findTest(db, id);
  if (row === undefined) throw new MethodError('Test not found', { test_id: id });
  if (row.progress < 100) throw new MethodError('Test not finished', { test_id: id, progress: row.progress });
  return row;
}

export function evidenceMethods(context: ServiceContext) {
  const db = context.database.db;
  return {
    /**
     * Beside get_test_results (same entries, same order): each finding's tag and arguments, how many queries each
     * test case sent, the DS records that would match the zone's keys, and until when a new request for the same
     * test gives this result again.
     */
    get_test_evidence: method(object({ id: required(testId) }), {
      run: async ({ id }) => {
        const row = await finished(db, id);
        const entries = (await resultEntries(db, row.id)).filter((e) => !HIDDEN_LEVELS.has(e.level));
        const queries = await readQueryLog(db, row.id);
        const counts: Record<string, number> = {};
        for (const query of queries ?? []) counts[query.testcase ?? NO_TESTCASE] = (counts[query.testcase ?? NO_TESTCASE] ?? 0) + 1;
        const reusedUntil = new Date(
          Date.parse(timestamp(row.created_at)) + context.config.ageReusePreviousTestSeconds * 1000,
        ).toISOString();
        return {
          results: entries.map((e) => ({ tag: e.tag, args: JSON.parse(e.args) as unknown })),
          query_log: queries === undefined ? null : querySummary(queries),
          query_counts: counts,
          ds_suggestion: dsSuggestion(row.domain, queries ?? []),
          reused_until: reusedUntil,
        };
      },
    }),

    /** The queries one test case sent (UNSPECIFIED: while the zone was set up), each with the server's reply as records. */
    get_test_queries: method(object({ id: required(testId), testcase: optional(text) }), {
      run: async ({ id, testcase }) => {
        const row = await finished(db, id);
        const queries = (await readQueryLog(db, row.id)) ?? [];
        const wanted = (testcase ?? NO_TESTCASE).toLowerCase();
        return queries.filter((q) => (q.testcase ?? NO_TESTCASE).toLowerCase() === wanted).map(viewOf);
      },
    }),

    /** While a test runs: its progress, test cases done, and the queries it is still waiting for. */
    test_activity: method(object({ test_id: required(testId) }), {
      run: async ({ test_id }) => {
        const row = await findTest(db, test_id);
        if (row === undefined) throw new MethodError('Test not found', { test_id });
        const activity = parseActivity(row.activity);
        const now = Date.now();
        return {
          progress: row.progress,
          ...(activity && {
            testcases_done: activity.done,
            testcases_total: activity.total,
            waiting_for: activity.waiting.map((q) => ({
              server: q.server,
              qname: q.qname,
              qtype: typeToString(q.qtype),
              testcase: q.testcase ?? NO_TESTCASE,
              seconds: Math.max(0, Math.round((now - q.since) / 1000)),
            })),
            ...(activity.more !== undefined && { more_waiting: activity.more }),
          }),
        };
      },
    }),
  };
}
