// Starts BIND in the foreground and resolves once it says it is running (all zones loaded).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export interface NamedProcess {
  child: ChildProcess;
  stop(): Promise<void>;
}

// BIND sets up every view one after another (about half a second each on a busy machine), and the
// whole catalogue has well over a hundred views.
export function startNamed(configPath: string, logPath: string, timeoutMs = 240_000): Promise<NamedProcess> {
  // -n 1: one worker thread is plenty for a lab and keeps start-up quick.
  const child = spawn('named', ['-g', '-n', '1', '-c', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  const log = createWriteStream(logPath);
  let output = '';
  let started = false;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      void stop();
      const errors = output
        .split('\n')
        .filter((line) => /error|fatal|failed|not loaded|bad|unknown/i.test(line) && !line.includes('built with'))
        .slice(-8);
      reject(new Error(`named ${why}. Its log (${logPath}):\n${errors.join('\n')}`));
    };
    const timer = setTimeout(() => fail(`did not start within ${timeoutMs} ms`), timeoutMs);
    child.on('error', (error) => fail(`could not be started (${error.message}; Debian package bind9)`));
    child.on('exit', (code, signal) => fail(`exited during start-up (${signal ?? `code ${code}`})`));
    child.stderr.on('data', (chunk: Buffer) => {
      log.write(chunk);
      if (started) return;
      output += chunk.toString();
      if (/\brunning$/m.test(output)) {
        started = true;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.on('exit', () => log.end());
        resolve({ child, stop });
      }
    });
  });
}
