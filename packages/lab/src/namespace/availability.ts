// Can this machine run a lab? One clear reason when it cannot (not root, unshare forbidden, a name
// server missing: the catalogue has servers of each of BIND, Knot DNS, NSD and PowerDNS).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export class LabUnavailableError extends Error {
  override name = 'LabUnavailableError';
}

let cached: Promise<string | undefined> | undefined;

/** undefined when a lab can run here, else the reason it cannot. */
export function labUnavailableReason(): Promise<string | undefined> {
  cached ??= probe();
  return cached;
}

async function probe(): Promise<string | undefined> {
  try {
    await run('unshare', ['--net', '--pid', '--fork', '--kill-child', 'ip', 'link', 'set', 'lo', 'up']);
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    const detail =
      e.code === 'ENOENT' ? 'unshare or ip is not installed (Debian packages util-linux, iproute2)' : (e.stderr ?? e.message).trim();
    const who = process.getuid?.() === 0 ? 'this machine does not allow creating namespaces' : 'it must run as root';
    return `the DNS lab cannot create its private network namespace (${who}): ${detail}`;
  }
  for (const [tool, pkg] of [
    ['named', 'bind9'],
    ['dnssec-signzone', 'bind9-utils'],
    ['named-compilezone', 'bind9-utils'],
    ['nsenter', 'util-linux'],
    ['knotd', 'knot'],
    ['nsd', 'nsd'],
    ['pdns_server', 'pdns-server'],
  ] as const) {
    try {
      await run('which', [tool]);
    } catch {
      return `the DNS lab needs ${tool} (Debian package ${pkg})`;
    }
  }
  return undefined;
}

export async function assertLabAvailable(): Promise<void> {
  const reason = await labUnavailableReason();
  if (reason !== undefined) throw new LabUnavailableError(reason);
}
