// Today's reference engine, zonemaster-cli 8.0.1 (Zonemaster engine 9.0.1), run inside a lab from the
// Debian unstable root that scripts/install-reference.sh makes. The root keeps the machine's own
// Debian untouched; the command still runs in the lab's network namespace, so it sees only the lab.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ExecOptions, ExecResult, Lab } from '../namespace/start-lab.ts';

export const referenceRoot = process.env.LAB_REFERENCE_ROOT ?? '/var/cache/dns-lab-reference/sid';
export const installReferenceCommand = 'sh packages/lab/scripts/install-reference.sh';

/** Why the reference engine cannot run here, or undefined when it can. */
export function referenceUnavailableReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'the reference engine runs in a chroot, which needs root';
  if (!existsSync(join(referenceRoot, 'usr/bin/zonemaster-cli')))
    return `zonemaster-cli 8.0.1 is not installed in ${referenceRoot} (run: ${installReferenceCommand})`;
  return undefined;
}

/** The lab's root hints, copied inside the reference's root, as the path the reference sees. */
function hintsInsideRoot(lab: Lab): string {
  const name = `lab-hints-${createHash('sha256').update(lab.hintsPath).digest('hex').slice(0, 12)}`;
  mkdirSync(join(referenceRoot, 'tmp'), { recursive: true });
  copyFileSync(lab.hintsPath, join(referenceRoot, 'tmp', name));
  return `/tmp/${name}`;
}

/** The command line that runs `zonemaster-cli ARGS` in the lab; the argument '{hints}' stands for the lab's root hints. */
export function referenceCommand(lab: Lab, args: string[]): string[] {
  const reason = referenceUnavailableReason();
  if (reason !== undefined) throw new Error(reason);
  const hints = args.includes('{hints}') ? hintsInsideRoot(lab) : '';
  return ['chroot', referenceRoot, 'zonemaster-cli', ...args.map((a) => (a === '{hints}' ? hints : a))];
}

/** Runs `zonemaster-cli ARGS` in the lab. The reference prints `{"results": [...]}` with --json. */
export function execReference(lab: Lab, args: string[], options: ExecOptions = {}): Promise<ExecResult> {
  const [command, ...rest] = referenceCommand(lab, args);
  return lab.exec(command, rest, options);
}
