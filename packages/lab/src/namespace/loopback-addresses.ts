// Puts every server address on the namespace's loopback (never on the host: this runs inside).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function addLoopbackAddresses(addresses: string[]): Promise<void> {
  // nodad: an IPv6 address is usable at once instead of after duplicate detection.
  const commands = [
    'link set lo up',
    ...addresses.map((a) => (a.includes(':') ? `addr add ${a}/128 dev lo nodad` : `addr add ${a}/32 dev lo`)),
  ];
  const child = run('ip', ['-batch', '-']);
  child.child.stdin?.end(commands.join('\n') + '\n');
  try {
    await child;
  } catch (error) {
    throw new Error(`could not configure the lab's loopback addresses: ${(error as { stderr?: string }).stderr?.trim() ?? String(error)}`);
  }
}
