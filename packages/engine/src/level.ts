// Severity levels in rising order, as the reference profile names them.
export const levels = ['DEBUG3', 'DEBUG2', 'DEBUG', 'INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type Level = (typeof levels)[number];

export function isLevel(value: unknown): value is Level {
  return typeof value === 'string' && (levels as readonly string[]).includes(value);
}

export function levelRank(level: Level): number {
  return levels.indexOf(level);
}

export function worstLevel(found: Iterable<Level>): Level | undefined {
  let worst: Level | undefined;
  for (const level of found) if (worst === undefined || levelRank(level) > levelRank(worst)) worst = level;
  return worst;
}
