// dnscheck --nagios: the run as a monitoring plugin (Monitoring Plugins development guidelines): one
// status line "DNSCHECK <STATE> - <text> | <perfdata>" and the state as exit code. ERROR counts as
// CRITICAL (the zone is broken), WARNING as WARNING, NOTICE and below as OK; a run that could not be
// made at all (bad arguments, a crash) is UNKNOWN.
import { formatFinding } from '../catalogue/catalogue.ts';
import type { Finding } from '../finding.ts';
import { levelRank, worstLevel, type Level } from '../level.ts';

export const nagiosStates = { OK: 0, WARNING: 1, CRITICAL: 2, UNKNOWN: 3 } as const;
export type NagiosState = keyof typeof nagiosStates;

const counted: Level[] = ['CRITICAL', 'ERROR', 'WARNING', 'NOTICE', 'INFO'];

export function nagiosState(findings: readonly Finding[]): NagiosState {
  const worst = worstLevel(findings.map((f) => f.level));
  if (worst === undefined || levelRank(worst) < levelRank('WARNING')) return 'OK';
  return worst === 'WARNING' ? 'WARNING' : 'CRITICAL';
}

/** The plugin's one line: state, the zone, counts, the first of the worst findings, then performance data. */
export function nagiosLine(domain: string, findings: readonly Finding[], seconds: number, locale: string): string {
  const state = nagiosState(findings);
  const count = (level: Level) => findings.filter((f) => f.level === level).length;
  const problems = (['CRITICAL', 'ERROR', 'WARNING'] as const)
    .filter((level) => count(level) > 0)
    .map((level) => `${count(level)} ${level}`);
  const worst = worstLevel(findings.map((f) => f.level));
  const first = state === 'OK' ? undefined : findings.find((f) => f.level === worst);
  const text = [
    `${domain}: ${problems.length > 0 ? problems.join(', ') : 'no problems found'}`,
    ...(first ? [clean(formatFinding(first, locale))] : []),
  ].join('; ');
  // 'label'=value[UOM];warn;crit;min;max — counts have a minimum of 0, the time is in seconds.
  const perfdata = [...counted.map((level) => `${level.toLowerCase()}=${count(level)};;;0`), `time=${seconds.toFixed(3)}s;;;0`].join(' ');
  return `DNSCHECK ${state} - ${text} | ${perfdata}`;
}

export function nagiosUnknown(reason: string): string {
  return `DNSCHECK UNKNOWN - ${clean(reason)}`;
}

/** One line, and no '|' (which starts the performance data). */
function clean(text: string): string {
  return text.replace(/\s+/g, ' ').replaceAll('|', '/').trim();
}
