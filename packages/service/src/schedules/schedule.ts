// When a watch runs: "every <N>m|h" (N minutes or hours, counted from the last run) or "daily HH:MM"
// (UTC). Schedules are stored as their normalised text, so a stored one always parses.

export type Schedule = { kind: 'every'; minutes: number } | { kind: 'daily'; hour: number; minute: number };

const MINUTES_IN_A_WEEK = 7 * 24 * 60;

/** The schedule a text names, or undefined when it names none. */
export function parseSchedule(text: string): Schedule | undefined {
  const every = /^every\s+(\d{1,5})\s*(m|min|minutes?|h|hours?)$/i.exec(text.trim());
  if (every !== null) {
    const minutes = Number(every[1]) * (every[2]?.toLowerCase().startsWith('h') === true ? 60 : 1);
    return minutes >= 1 && minutes <= MINUTES_IN_A_WEEK ? { kind: 'every', minutes } : undefined;
  }
  const daily = /^daily\s+(?:at\s+)?([01]?\d|2[0-3]):([0-5]\d)(?:\s*UTC)?$/i.exec(text.trim());
  if (daily !== null) return { kind: 'daily', hour: Number(daily[1]), minute: Number(daily[2]) };
  return undefined;
}

/** The stored, canonical spelling: `every 360m` is `every 6h`. */
export function scheduleText(schedule: Schedule): string {
  if (schedule.kind === 'daily') return `daily ${String(schedule.hour).padStart(2, '0')}:${String(schedule.minute).padStart(2, '0')}`;
  return schedule.minutes % 60 === 0 ? `every ${schedule.minutes / 60}h` : `every ${schedule.minutes}m`;
}

/** The first run after `after` (exclusive for daily; an interval is counted from `after`). */
export function nextRun(schedule: Schedule, after: Date): Date {
  if (schedule.kind === 'every') return new Date(after.getTime() + schedule.minutes * 60_000);
  const at = new Date(Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate(), schedule.hour, schedule.minute));
  if (at.getTime() <= after.getTime()) at.setUTCDate(at.getUTCDate() + 1);
  return at;
}

/** The first run of a new watch: an interval starts at once, a daily one at its next time of day. */
export function firstRun(schedule: Schedule, now: Date): Date {
  return schedule.kind === 'every' ? now : nextRun(schedule, now);
}
