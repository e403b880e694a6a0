// What a watch says of a domain's key rollovers, from the DNSSEC snapshots of its runs (oldest first):
// - signature_expiry: a server's first-expiring signature is closer than its TTL plus a margin (one
//   more TTL, the watch's interval and a minute for the run), so the alert comes at least twice the TTL
//   before a validating resolver meets the expired signature, whichever run sees it first;
// - ds_left_early: a DS left the parent while a DNSKEY set that only it secures may still be cached
//   (seen within its TTL), the current one included (RFC 7583 §3.3: the DS goes after the key change
//   has reached the caches);
// - key_left_early: a DNSKEY left while a DS set that only it answers may still be cached, or while
//   RRsets it signed may be (RFC 7583 §3.2, §3.3).
// A clean rollover waits out each TTL, so it never gives one. DS are matched to keys by algorithm and
// key tag, as a validator first picks them.
import type { DnssecSnapshot } from '@app/engine';

export interface SnapshotRun {
  testId: string;
  /** When the run ended, ms since the epoch. */
  at: number;
  snapshot: DnssecSnapshot;
}

export type RolloverIssue =
  | {
      kind: 'signature_expiry';
      /** Seconds since the epoch. */
      expiration: number;
      /** When the alert became due, seconds since the epoch. */
      dueAt: number;
      ttl: number;
      owner: string;
      type: string;
      servers: string[];
    }
  | {
      kind: 'ds_left_early' | 'key_left_early';
      record: string;
      ttl: number;
      /** Until when caches may need it (s). */ neededUntil: number;
    };

/** The time a run needs, besides the watch's interval, between seeing a signature and telling. */
const RUN_ALLOWANCE_S = 60;

/** The alert's key: the same issue seen by the next run is not told again. */
export const issueKey = (issue: RolloverIssue) =>
  issue.kind === 'signature_expiry' ? `${issue.kind} ${issue.expiration}` : `${issue.kind} ${issue.record}`;

type KeySet = Map<string, { tag: number; algorithm: number; signsKeys: boolean; ttl: number }>;

function keysOf(snapshot: DnssecSnapshot): KeySet | undefined {
  const servers = snapshot.servers.filter((s) => s.keys !== undefined);
  if (servers.length === 0) return undefined;
  const keys: KeySet = new Map();
  for (const key of servers.flatMap((s) => s.keys ?? [])) {
    const known = keys.get(key.id);
    keys.set(key.id, { ...key, signsKeys: key.signsKeys || known?.signsKeys === true });
  }
  return keys;
}

type DsSet = Map<string, { tag: number; algorithm: number; ttl: number }>;

function dsOf(snapshot: DnssecSnapshot): DsSet | undefined {
  if (snapshot.parents.length === 0) return undefined;
  return new Map(snapshot.parents.flatMap((p) => p.ds.map((d) => [d.id, d] as const)));
}

const maxTtl = (records: Map<string, { ttl: number }>) => Math.max(0, ...[...records.values()].map((r) => r.ttl));

const names = (ds: { tag: number; algorithm: number }, key: { tag: number; algorithm: number }) =>
  ds.tag === key.tag && ds.algorithm === key.algorithm;

/** Whether some DS of `ds` names a key that signs the DNSKEY set `keys`. */
function secures(ds: Iterable<{ tag: number; algorithm: number }>, keys: KeySet): boolean {
  const signing = [...keys.values()].filter((k) => k.signsKeys);
  return [...ds].some((d) => signing.some((k) => names(d, k)));
}

/** The issues at the last run of `runs`; `intervalSeconds` is the watch's time between runs. */
export function rolloverIssues(runs: readonly SnapshotRun[], intervalSeconds: number): RolloverIssue[] {
  const last = runs.at(-1);
  if (last === undefined) return [];
  const now = last.at / 1000;
  const issues: RolloverIssue[] = [];

  const expiring = last.snapshot.servers.flatMap((s) => {
    const sig = s.earliestExpiry;
    if (sig === undefined) return [];
    const dueAt = sig.expiration - 2 * sig.ttl - intervalSeconds - RUN_ALLOWANCE_S;
    return now >= dueAt ? [{ server: s.server, sig, dueAt }] : [];
  });
  const first = expiring.sort((a, b) => a.sig.expiration - b.sig.expiration)[0];
  if (first !== undefined)
    issues.push({
      kind: 'signature_expiry',
      expiration: first.sig.expiration,
      dueAt: first.dueAt,
      ttl: first.sig.ttl,
      owner: first.sig.owner,
      type: first.sig.type,
      servers: expiring.filter((e) => e.sig.expiration === first.sig.expiration).map((e) => e.server),
    });

  // What left between the run before and this one, judged by what caches may still hold.
  const previous = runs.at(-2);
  if (previous === undefined) return issues;
  const seen = runs.map((run) => ({ at: run.at / 1000, keys: keysOf(run.snapshot), ds: dsOf(run.snapshot), run }));
  const lastSeen = seen.at(-1);
  const before = seen.at(-2);
  if (lastSeen === undefined || before === undefined) return issues;

  if (before.ds !== undefined && lastSeen.ds !== undefined) {
    const currentDs = [...lastSeen.ds.values()];
    for (const [id, ds] of before.ds) {
      if (lastSeen.ds.has(id)) continue;
      // DNSKEY sets still in caches (the current one always) that this DS secured and the DS left behind do not.
      const stranded = seen.filter(
        (s): s is typeof s & { keys: KeySet } =>
          s.keys !== undefined && (s === lastSeen || now < s.at + maxTtl(s.keys)) && secures([ds], s.keys) && !secures(currentDs, s.keys),
      );
      if (stranded.length > 0)
        issues.push({
          kind: 'ds_left_early',
          record: `DS ${id}`,
          ttl: ds.ttl,
          neededUntil: Math.ceil(Math.max(...stranded.map((s) => (s === lastSeen ? now : s.at) + maxTtl(s.keys)))),
        });
    }
  }

  if (before.keys !== undefined && lastSeen.keys !== undefined) {
    const current = lastSeen.keys;
    for (const [id, key] of before.keys) {
      if (current.has(id)) continue;
      // DS sets still in caches that named this key and name no key signing the current set.
      const dsNeeds = seen
        .filter((s) => s.ds !== undefined && [...s.ds.values()].some((d) => names(d, key)) && !secures(s.ds.values(), current))
        .map((s) => s.at + (s.ds === undefined ? 0 : maxTtl(s.ds)));
      // RRsets it signed that caches may still hold.
      const sigNeeds = seen.flatMap((s) =>
        s.run.snapshot.servers.flatMap((server) => server.signingKeys.filter((k) => k.tag === key.tag).map((k) => s.at + k.ttl)),
      );
      const neededUntil = Math.max(...dsNeeds, ...sigNeeds);
      if (now < neededUntil)
        issues.push({ kind: 'key_left_early', record: `DNSKEY ${id}`, ttl: key.ttl, neededUntil: Math.ceil(neededUntil) });
    }
  }
  return issues;
}

/** The issues of the last run that the run before it did not have: what to alert on. */
export function newRolloverIssues(runs: readonly SnapshotRun[], intervalSeconds: number): RolloverIssue[] {
  const known = new Set(rolloverIssues(runs.slice(0, -1), intervalSeconds).map(issueKey));
  return rolloverIssues(runs, intervalSeconds).filter((issue) => !known.has(issueKey(issue)));
}
