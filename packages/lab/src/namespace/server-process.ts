// Starts one Knot DNS, NSD or PowerDNS process of the plan and resolves once it answers for every
// zone it serves (none of them says "all zones loaded" the way BIND does; Knot even answers
// SERVFAIL for a zone it is still loading).
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { query, RRType } from '@app/dns';
import { implementationCommands } from '../world/server-processes.ts';
import type { ServerProcess } from '../world/world-plan.ts';

const serverFailure = 2;

export interface RunningServer {
  stop(): Promise<void>;
}

export async function startServerProcess(spec: ServerProcess, timeoutMs = 60_000): Promise<RunningServer> {
  const child = spawn(spec.command, spec.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(spec.logPath);
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  let exited: string | undefined;
  const gone = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      exited = `could not be started (${error.message}; Debian package ${implementationCommands[spec.implementation][1]})`;
      resolve();
    });
    child.once('exit', (code, signal) => {
      exited ??= `exited (${signal ?? `code ${code}`})`;
      resolve();
    });
  });
  const stop = async (): Promise<void> => {
    if (exited !== undefined) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await gone;
    clearTimeout(timer);
  };
  const deadline = Date.now() + timeoutMs;
  const pending = spec.zones.length > 0 ? [...spec.zones] : ['.'];
  while (pending.length > 0) {
    if (exited === undefined && Date.now() > deadline) {
      await stop();
      exited = `did not answer for ${pending.join(', ')} within ${timeoutMs} ms`;
    }
    if (exited !== undefined)
      throw new Error(`${spec.command} for ${spec.server} ${exited}. Its log (${spec.logPath}):\n${logTail(spec.logPath)}`);
    const result = await query(
      { address: spec.address, port: spec.port },
      { name: pending[0], type: RRType.SOA },
      { timeoutMs: 200, retries: 0 },
    );
    // Without zones, any answer at all means it listens.
    if (result.outcome === 'response' && (spec.zones.length === 0 || result.message.rcode !== serverFailure)) pending.shift();
    else await sleep(20);
  }
  return { stop };
}

function logTail(path: string): string {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => /error|fail|warning|invalid|unknown|not /i.test(line))
      .slice(-8)
      .join('\n');
  } catch {
    return '';
  }
}
