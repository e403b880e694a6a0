// The DNSSEC timeline's picture as data: one lane per DS record, per key of each server and per server's
// signature validity, with the spans of runs that saw each, on one time axis; drawn by views/dnssec-timeline.ts.
import type { DnssecTimeline } from './api.ts';

export interface Lane {
  group: string;
  label: string;
  /** Spans on the axis, ms since the epoch; a run seen alone is a span of no length. */
  spans: { from: number; to: number; title: string }[];
}

export interface TimelineModel {
  start: number;
  end: number;
  lanes: Lane[];
  alerts: { at: number; title: string }[];
}

/** Consecutive runs that saw a thing make one span. */
function spansOf(times: readonly number[], seen: readonly boolean[], title: (from: number, to: number) => string) {
  const spans: Lane['spans'] = [];
  let from: number | undefined;
  times.forEach((at, i) => {
    if (seen[i] === true) {
      from ??= at;
      if (seen[i + 1] !== true) {
        spans.push({ from, to: at, title: title(from, at) });
        from = undefined;
      }
    }
  });
  return spans;
}

export function timelineModel(
  timeline: DnssecTimeline,
  words: { ds: string; keys: (server: string) => string; validity: (server: string) => string; span: (from: number, to: number) => string },
): TimelineModel {
  const times = timeline.runs.map((run) => Date.parse(run.at));
  const start = times[0] ?? 0;
  const last = times.at(-1) ?? start;
  // Signatures valid for weeks would squeeze the runs into a corner: the axis goes a third past the last run.
  const end = last + Math.max((last - start) / 3, 60_000);
  const lanes: Lane[] = [];
  const dsIds = [...new Set(timeline.runs.flatMap((run) => run.parents.flatMap((p) => p.ds)))].sort();
  for (const id of dsIds)
    lanes.push({
      group: words.ds,
      label: `DS ${id}`,
      spans: spansOf(
        times,
        timeline.runs.map((run) => run.parents.some((p) => p.ds.includes(id))),
        words.span,
      ),
    });
  const servers = [...new Set(timeline.runs.flatMap((run) => run.servers.map((s) => s.server)))].sort();
  for (const server of servers) {
    const keys = new Map<string, number>();
    for (const run of timeline.runs)
      for (const key of run.servers.find((s) => s.server === server)?.keys ?? []) keys.set(key.id, key.flags);
    for (const [id, flags] of [...keys].sort())
      lanes.push({
        group: words.keys(server),
        label: `DNSKEY ${id} (${flags & 1 ? 'KSK' : 'ZSK'})`,
        spans: spansOf(
          times,
          timeline.runs.map((run) => run.servers.find((s) => s.server === server)?.keys.some((k) => k.id === id) === true),
          words.span,
        ),
      });
  }
  for (const server of servers) {
    const spans = timeline.runs.flatMap((run) => {
      const expiry = run.servers.find((s) => s.server === server)?.earliest_expiry;
      if (expiry === undefined) return [];
      const to = Date.parse(expiry.expiration);
      return [{ from: Date.parse(run.at), to: Math.min(to, end), title: `${expiry.owner} ${expiry.type} RRSIG → ${expiry.expiration}` }];
    });
    lanes.push({ group: words.validity(server), label: server, spans });
  }
  return { start, end, lanes, alerts: [] };
}
