// get_dnssec_timeline: a domain's DNSSEC over its recent runs (keys, DS, first signature to expire,
// per server, read from the runs' query logs) and what a watch would have alerted on at each run;
// the history page draws it.
import { recentRuns } from '../db/recent-runs.ts';
import { method } from '../rpc/method.ts';
import { domainName } from '../validation/data-types.ts';
import { object, required } from '../validation/param-rules.ts';
import { rolloverIssues, issueKey, type RolloverIssue, type SnapshotRun } from '../watch/rollover.ts';
import { LOOK_BACK_MS, RolloverRuns } from '../watch/rollover-runs.ts';
import type { ServiceContext } from './context.ts';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

/** The watches' interval is not known here: the runs' own median spacing stands in for it. */
function spacingSeconds(runs: readonly SnapshotRun[]): number {
  const gaps = runs
    .slice(1)
    .map((run, i) => (run.at - (runs[i]?.at ?? run.at)) / 1000)
    .sort((a, b) => a - b);
  return Math.max(60, gaps[Math.floor(gaps.length / 2)] ?? 0);
}

function issueView(issue: RolloverIssue) {
  return issue.kind === 'signature_expiry'
    ? { kind: issue.kind, owner: issue.owner, type: issue.type, expiration: iso(issue.expiration), ttl: issue.ttl, servers: issue.servers }
    : { kind: issue.kind, record: issue.record, ttl: issue.ttl, needed_until: iso(issue.neededUntil) };
}

export function dnssecTimelineMethods(context: ServiceContext) {
  const { db } = context.database;
  const runs = new RolloverRuns(db);
  return {
    get_dnssec_timeline: method(object({ domain: required(domainName) }), {
      run: async ({ domain }) => {
        const latest = (
          await recentRuns(db, domain, false, new Date(Date.now() - LOOK_BACK_MS).toISOString(), new Date().toISOString(), 1)
        )[0];
        const snapshots = latest === undefined ? [] : await runs.upTo(latest.hashId, 0);
        const interval = spacingSeconds(snapshots);
        const alerts = snapshots.flatMap((run, i) => {
          const before = new Set(rolloverIssues(snapshots.slice(0, i), interval).map(issueKey));
          return rolloverIssues(snapshots.slice(0, i + 1), interval)
            .filter((issue) => !before.has(issueKey(issue)))
            .map((issue) => ({ test_id: run.testId, at: new Date(run.at).toISOString(), ...issueView(issue) }));
        });
        return {
          domain,
          runs: snapshots.map(({ testId, at, snapshot }) => ({
            test_id: testId,
            at: new Date(at).toISOString(),
            servers: snapshot.servers.map((s) => ({
              server: s.server,
              keys: (s.keys ?? []).map((k) => ({ id: k.id, flags: k.flags, signs_keys: k.signsKeys })),
              ...(s.earliestExpiry && {
                earliest_expiry: {
                  expiration: iso(s.earliestExpiry.expiration),
                  owner: s.earliestExpiry.owner,
                  type: s.earliestExpiry.type,
                  ttl: s.earliestExpiry.ttl,
                },
              }),
            })),
            parents: snapshot.parents.map((p) => ({ server: p.server, ds: p.ds.map((d) => d.id) })),
          })),
          alerts,
        };
      },
    }),
  };
}
