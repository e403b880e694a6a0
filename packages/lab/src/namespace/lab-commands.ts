// Commands run inside a lab: they join its network namespace and its PID namespace too, so they end with
// the lab whatever they do, and they find the lab's root hints (and trust anchors) in their environment.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';

export interface ExecOptions {
  env?: Record<string, string>;
  /** 'inherit' shows the command's output live instead of collecting it. */
  stdio?: 'pipe' | 'inherit';
  timeoutMs?: number;
  cwd?: string;
}

export interface ExecResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface LabCommands {
  spawn(command: string, args?: string[], options?: { env?: Record<string, string>; stdio?: StdioOptions; cwd?: string }): ChildProcess;
  exec(command: string, args?: string[], options?: ExecOptions): Promise<ExecResult>;
}

/** `labEnv` is what every command gets on top of the host's environment (and under its own `env`). */
export function labCommands(namespacePid: number, labEnv: Record<string, string>): LabCommands {
  const envFor = (env?: Record<string, string>): NodeJS.ProcessEnv => ({ ...process.env, ...labEnv, ...env });
  const inside = (command: string, args: string[]): string[] => [
    '--target',
    String(namespacePid),
    '--net',
    `--pid=/proc/${namespacePid}/ns/pid_for_children`,
    '--',
    command,
    ...args,
  ];
  return {
    spawn(command, args = [], options = {}) {
      return spawn('nsenter', inside(command, args), { env: envFor(options.env), stdio: options.stdio ?? 'pipe', cwd: options.cwd });
    },
    async exec(command, args = [], options = {}) {
      // With a time limit the command gets a process group of its own, so that the limit ends what
      // nsenter started too (a chroot'ed zonemaster-cli outlived nsenter's kill and held the pipes open).
      const limited = options.timeoutMs !== undefined;
      const child = spawn('nsenter', inside(command, args), {
        env: envFor(options.env),
        cwd: options.cwd,
        stdio: options.stdio === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'],
        detached: limited,
      });
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const killGroup = (): void => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      };
      const timer = limited ? setTimeout(killGroup, options.timeoutMs) : undefined;
      return await new Promise((done, fail) => {
        child.once('error', fail);
        child.once('close', (code, signal) => {
          clearTimeout(timer);
          done({ code, signal, stdout, stderr });
        });
      });
    },
  };
}
