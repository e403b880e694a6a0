// Runs BIND's named on loopback with throwaway config and zones, for transport and interop tests.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query, RRType } from '@app/dns';

export const NAMED = '/usr/sbin/named';

/** Why BIND tests cannot run here, or undefined when they can. */
export function namedMissing(): string | undefined {
  const probe = spawnSync(NAMED, ['-v']);
  return probe.error ? `BIND's named is not available at ${NAMED} (Debian package bind9): ${probe.error.message}` : undefined;
}

export interface RunningNamed {
  port: number;
  dir: string;
  stop(): Promise<void>;
}

// The bottom package may import no other, so it keeps this copy of @app/database/testing's freePort.
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * `extraOptions` go into the options block; `topLevel(dir)` adds statements beside it (tls, http),
 * given the directory it may write files into first.
 */
export async function startNamed(
  zones: { origin: string; text: string }[],
  extraOptions = '',
  topLevel: (dir: string) => string = () => '',
): Promise<RunningNamed> {
  const dir = mkdtempSync(join(tmpdir(), 'dns-named-'));
  const statements = topLevel(dir);
  const port = await freePort();
  const zoneBlocks = zones.map((z, i) => {
    writeFileSync(join(dir, `zone${i}.db`), z.text);
    return `zone "${z.origin}" { type primary; file "${join(dir, `zone${i}.db`)}"; };`;
  });
  writeFileSync(
    join(dir, 'named.conf'),
    `
options {
  directory "${dir}";
  pid-file none;
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 port ${port} { ::1; };
  recursion no;
  dnssec-validation no;
  notify no;
  ${extraOptions}
};
controls { };
${statements}
${zoneBlocks.join('\n')}
`,
  );
  const child: ChildProcess = spawn(NAMED, ['-g', '-n', '1', '-c', join(dir, 'named.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready once it answers for the first zone over both transports.
  const deadline = Date.now() + 15000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`named exited early:\n${log}`);
    }
    const udp = await query({ address: '127.0.0.1', port }, { name: zones[0].origin, type: RRType.SOA }, { timeoutMs: 200, retries: 0 });
    if (udp.outcome === 'response' && udp.message.answer.length > 0) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`named did not become ready:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, dir, stop };
}
