// Text output of the differential runner: the detail for one scenario, one table for many.
import type { CheckerRun } from './checkers.ts';
import { keysOf } from './compare-findings.ts';
import type { DiffRow } from './run-diff.ts';

const percent = (value: number): string => `${value.toFixed(1)}%`;

function describe(run: CheckerRun): string {
  return run.ok
    ? `${run.version}: ${keysOf(run.findings).length} distinct findings at INFO or above (${run.seconds.toFixed(1)} s)`
    : `not run — ${run.reason}`;
}

function list(title: string, keys: string[]): string[] {
  return [`${title} (${keys.length}):`, ...keys.map((k) => `  ${k}`)];
}

export function scenarioReport(row: DiffRow): string {
  const lines = [
    `Scenario ${row.scenario}, domain ${row.domain}`,
    `  reference  ${describe(row.reference)}`,
    `  ours       ${describe(row.ours)}`,
    '',
  ];
  if (row.comparison !== undefined) {
    const c = row.comparison;
    lines.push(...list('Agree (testcase tag level)', c.agree), ...list('Missing from ours', c.missing), ...list('Extra in ours', c.extra));
    lines.push('', `Agreement: ${percent(c.agreement)} (${c.agree.length} of ${c.agree.length + c.missing.length + c.extra.length})`);
    const a = c.arguments;
    lines.push(
      `Arguments: ${percent(a.agreement)} of findings agree with their arguments (${a.agree.length} of ${a.agree.length + a.missing.length + a.extra.length})`,
    );
    if (a.missing.length + a.extra.length > 0)
      lines.push(...list('  Only the reference says (with arguments)', a.missing), ...list('  Only ours says (with arguments)', a.extra));
  } else if (row.reference.ok) {
    lines.push(...list("The reference's findings (nothing to compare them with)", keysOf(row.reference.findings)));
  }
  return lines.join('\n');
}

export function catalogueTable(rows: DiffRow[]): string {
  const header = ['scenario', 'domain', 'reference', 'ours', 'agree', 'missing', 'extra', 'agreement', 'arguments'];
  const body = rows.map((row) => {
    const c = row.comparison;
    const count = (run: CheckerRun): string => (run.ok ? String(keysOf(run.findings).length) : 'n/a');
    return [
      row.scenario,
      row.domain,
      count(row.reference),
      count(row.ours),
      ...(c === undefined
        ? ['-', '-', '-', 'n/a', 'n/a']
        : [String(c.agree.length), String(c.missing.length), String(c.extra.length), percent(c.agreement), percent(c.arguments.agreement)]),
    ];
  });
  const compared = rows.flatMap((r) => (r.comparison === undefined ? [] : [r.comparison]));
  const sum = (pick: (c: NonNullable<DiffRow['comparison']>) => number): number => compared.reduce((total, c) => total + pick(c), 0);
  const agree = sum((c) => c.agree.length);
  const all = agree + sum((c) => c.missing.length) + sum((c) => c.extra.length);
  const argAgree = sum((c) => c.arguments.agree.length);
  const argAll = argAgree + sum((c) => c.arguments.missing.length + c.arguments.extra.length);
  body.push([
    'total',
    '',
    '',
    '',
    String(agree),
    String(sum((c) => c.missing.length)),
    String(sum((c) => c.extra.length)),
    compared.length === 0 ? 'n/a' : percent(all === 0 ? 100 : (100 * agree) / all),
    compared.length === 0 ? 'n/a' : percent(argAll === 0 ? 100 : (100 * argAgree) / argAll),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const format = (cells: string[]): string =>
    cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  const notes = [...new Set(rows.flatMap((r) => [r.reference, r.ours]).flatMap((run) => (run.ok ? [] : [run.reason])))];
  return [
    format(header),
    format(widths.map((w) => '-'.repeat(w))),
    ...body.map(format),
    '',
    moduleTable(compared),
    ...notes.map((n) => `note: ${n}`),
  ].join('\n');
}

/** The module a finding key belongs to: its test case without the number ('UNSPECIFIED' stays as it is). */
const moduleOf = (key: string): string => key.split(' ')[0].replace(/\d+$/, '');

/** Totals per module over every compared scenario, so each module's fidelity can be read at a glance. */
function moduleTable(compared: NonNullable<DiffRow['comparison']>[]): string {
  const zero = { agree: 0, missing: 0, extra: 0, argsAgree: 0, argsOther: 0 };
  const totals = new Map<string, typeof zero>();
  const count = (key: string, kind: keyof typeof zero): void => {
    const entry = totals.get(moduleOf(key)) ?? { ...zero };
    entry[kind]++;
    totals.set(moduleOf(key), entry);
  };
  for (const c of compared) {
    for (const [kind, keys] of [
      ['agree', c.agree],
      ['missing', c.missing],
      ['extra', c.extra],
      ['argsAgree', c.arguments.agree],
      ['argsOther', [...c.arguments.missing, ...c.arguments.extra]],
    ] as const) {
      for (const key of keys) count(key, kind);
    }
  }
  const rows = [...totals]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([module, t]) => [
      module,
      String(t.agree),
      String(t.missing),
      String(t.extra),
      percent(t.argsAgree + t.argsOther === 0 ? 100 : (100 * t.argsAgree) / (t.argsAgree + t.argsOther)),
    ]);
  const header = ['module', 'agree', 'missing', 'extra', 'arguments'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const format = (cells: string[]): string =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [format(header), format(widths.map((w) => '-'.repeat(w))), ...rows.map(format)].join('\n');
}
