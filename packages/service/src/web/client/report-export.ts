// A report as a file: JSON (get_test_results as the API gave it), CSV (RFC 4180) and plain text.
import type { TestEvidence, TestResults } from './api.ts';

export type ExportFormat = 'json' | 'csv' | 'txt';

// A cell that a spreadsheet would take for a formula is kept as text (OWASP's CSV injection advice):
// names and messages come from DNS answers that anyone can write.
const asText = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
const csvField = (value: string) => {
  const text = asText(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};
// Excel reads a CSV file as UTF-8 only when it starts with a byte order mark; without it å, ä, ø are garbled.
const byteOrderMark = '\uFEFF';

/**
 * The report as a file; with the evidence, each finding carries its tag and arguments beside its text (get_test_evidence
 * lists them entry for entry), so that scripts need not parse messages.
 */
export function reportFile(
  report: TestResults,
  format: ExportFormat,
  evidence?: TestEvidence,
): { name: string; type: string; text: string } {
  const name = `${report.params.domain || 'root'}-${report.hash_id}.${format}`;
  const coded = evidence?.results.length === report.results.length ? evidence.results : undefined;
  if (format === 'json') {
    const results =
      coded === undefined ? report.results : report.results.map((r, i) => ({ ...r, tag: coded[i]?.tag, args: coded[i]?.args }));
    return { name, type: 'application/json', text: `${JSON.stringify({ ...report, results }, null, 2)}\n` };
  }
  if (format === 'csv') {
    const rows = [
      ['module', 'testcase', 'level', 'tag', 'message', 'ns', 'args'],
      ...report.results.map((r, i) => [
        r.module,
        r.testcase,
        r.level,
        coded?.[i]?.tag ?? '',
        r.message,
        r.ns ?? '',
        coded === undefined ? '' : JSON.stringify(coded[i]?.args ?? {}),
      ]),
    ];
    return { name, type: 'text/csv', text: byteOrderMark + rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n' };
  }
  const width = Math.max(0, ...report.results.map((r) => r.level.length));
  const lines = [`${report.params.domain} ${report.created_at} ${report.hash_id}`, ''];
  let module = '';
  for (const [i, r] of report.results.entries()) {
    if (r.module !== module) {
      if (module !== '') lines.push('');
      lines.push(`${(module = r.module)}`);
    }
    lines.push(`  ${r.level.padEnd(width)}  ${r.testcase}  ${r.message}`);
    const code = coded?.[i];
    if (code !== undefined) lines.push(`  ${' '.repeat(width)}  ${code.tag} ${JSON.stringify(code.args)}`);
  }
  return { name, type: 'text/plain', text: `${lines.join('\n')}\n` };
}
