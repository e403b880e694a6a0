// What the parent should publish, as `dnscheck --json` puts it under `parent_ds` and the service's
// get_test_results carries it: made from the Automation module's findings, so a saved or stored run
// gives the same answer.
import type { Finding } from '../finding.ts';
import { parentDsTags } from '../checks/automation/automation01.ts';

export interface ParentDs {
  action: 'publish' | 'remove' | 'none';
  /** DS records in presentation format, canonical order: empty unless `publish`. */
  ds: string[];
  /** Why: the text of the finding that decides, in the run's language. */
  reason: string;
}

const records = (finding: Finding): string[] =>
  String(finding.args.ds_list ?? '')
    .split(';')
    .filter((line) => line !== '');

/** The parent's action from Automation01 (`describe` gives a finding's text) (and Automation02 for an unsigned delegation); undefined when the module did not run. */
export function parentDs(findings: readonly Finding[], describe: (finding: Finding) => string = (f) => f.tag): ParentDs | undefined {
  const ours = findings.filter((f) => f.module === 'AUTOMATION');
  const verdict = ours.find((f) => f.testcase === 'Automation01' && (parentDsTags as readonly string[]).includes(f.tag));
  if (!verdict) return undefined;
  const bootstrap = ours.find((f) => f.tag === 'BOOTSTRAP_POSSIBLE');
  if (verdict.tag === 'PARENT_DS_UNSIGNED_DELEGATION' && bootstrap)
    return { action: 'publish', ds: records(bootstrap), reason: describe(bootstrap) };
  const action = verdict.tag === 'PARENT_DS_PUBLISH' ? 'publish' : verdict.tag === 'PARENT_DS_REMOVE' ? 'remove' : 'none';
  return { action, ds: action === 'publish' ? records(verdict) : [], reason: describe(verdict) };
}
