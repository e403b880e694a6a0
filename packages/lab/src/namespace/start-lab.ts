// The programmatic lab: build a scenario's world, start it in fresh network + PID namespaces (supervisor-link.ts),
// run commands inside (lab-commands.ts), and take everything down again.
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { isIP, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeMessage, DnsDecodeError, type QueryOptions, type QueryResult, type QuestionInput, type ServerAddress } from '@app/dns';
import { loadScenario } from '../scenario/load-scenario.ts';
import type { Scenario } from '../scenario/scenario-format.ts';
import { withSignedTop } from '../scenario/signed-top.ts';
import { buildWorld } from '../world/build-world.ts';
import type { LabServer } from '../world/world-plan.ts';
import { parseLatency, type Latency } from '../scenario/latency.ts';
import { assertLabAvailable } from './availability.ts';
import { bridge } from './socket-bridge.ts';
import { labCommands, type ExecOptions, type ExecResult } from './lab-commands.ts';
import { startSupervisor, type SupervisorLink } from './supervisor-link.ts';
import type { ForwardResult, WireQueryResult } from './supervisor-protocol.ts';

export type { ExecOptions, ExecResult } from './lab-commands.ts';

export interface Lab {
  /** Root hints file naming the lab's root servers. */
  hintsPath: string;
  /** With `signedRoot`: the root's key as a BIND `trust-anchors` statement (`delv -a` reads it); DNS_TRUST_ANCHORS inside. */
  trustAnchorsPath?: string;
  /** The lab's own CA certificate (PEM) when a server offers DoT or DoH (`dnscheck --tls-ca`). */
  tlsCaPath?: string;
  /** Working directory with zones, keys, named.conf and logs. */
  dir: string;
  servers: LabServer[];
  /** Domains under test named by the scenario files. */
  domains: string[];
  /** The namespace's first process as the host sees it: `nsenter --target PID --net -- CMD` runs CMD in the lab from a shell. */
  pid: number;
  /** Addresses of a server by name (`ns1.example.test.`; the trailing dot may be left out). */
  addressesOf(serverName: string): string[];
  /** Runs a command inside the lab's network namespace, with DNS_ROOT_HINTS set. */
  exec(command: string, args?: string[], options?: ExecOptions): Promise<ExecResult>;
  /** Starts a long-running command inside the namespace (a service, an agent); it ends with the lab at the latest. */
  spawn(command: string, args?: string[], options?: { env?: Record<string, string>; stdio?: StdioOptions; cwd?: string }): ChildProcess;
  /**
   * @app/dns's `query`, sent from inside the namespace. `server` may be a lab server's name (its
   * first address is used), an address, or `{ address, port }`.
   */
  query(server: string | ServerAddress, question: QuestionInput, options?: Omit<QueryOptions, 'signal'>): Promise<QueryResult>;
  /**
   * Makes a TCP port inside the namespace (a service listening on its 127.0.0.1) reachable from the
   * host: returns the port on the host's 127.0.0.1 that leads there (`hostPort`, or any free one).
   * Closed when the lab stops.
   */
  forward(port: number, host?: string, hostPort?: number): Promise<number>;
  /** Milliseconds each start-up step took (world, addresses, named, responder, total). */
  startup: Record<string, number>;
  stop(): Promise<void>;
}

export interface StartLabOptions {
  /** Keep the working directory after stop (for debugging). Also LAB_KEEP=1. */
  keepDir?: boolean;
  /** Reuse zone files built earlier for the same scenario (default true; LAB_NO_CACHE=1 turns it off). */
  cache?: boolean;
  startTimeoutMs?: number;
  /** Every server waits this long before each answer (LAB_LATENCY, e.g. '50ms' or '20-80ms', sets it too). */
  latency?: Latency;
  /**
   * Sign the root and test. where the scenarios leave them unsigned (scenario/signed-top.ts), and hand
   * the root's key to the lab's open recursors as their trust anchor (`trustAnchorsPath`).
   */
  signedRoot?: boolean;
  /** Told each step of the start as it begins, and how far a long one got (a first build of a big world takes a while). */
  onProgress?: (line: string) => void;
}

const liveDirs = new Set<string>();
process.once('exit', () => {
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
});

export async function startLab(scenario: string | string[] | Scenario, options: StartLabOptions = {}): Promise<Lab> {
  const begun = performance.now();
  await assertLabAvailable();
  const loaded = typeof scenario === 'string' || Array.isArray(scenario) ? loadScenario(scenario) : scenario;
  const world = options.signedRoot === true ? withSignedTop(loaded) : loaded;
  const dir = await mkdtemp(join(tmpdir(), 'app-lab-'));
  const keep = options.keepDir === true || process.env.LAB_KEEP === '1';
  if (!keep) liveDirs.add(dir);
  const removeDir = (): void => {
    if (keep) return;
    liveDirs.delete(dir);
    rmSync(dir, { recursive: true, force: true });
  };

  let plan: Awaited<ReturnType<typeof buildWorld>>;
  let supervisor: SupervisorLink;
  let worldMs: number;
  try {
    plan = await buildWorld(world, dir, {
      cache: options.cache ?? process.env.LAB_NO_CACHE !== '1',
      latency: options.latency ?? (process.env.LAB_LATENCY ? parseLatency(process.env.LAB_LATENCY) : undefined),
      progress: options.onProgress,
    });
    worldMs = Math.round(performance.now() - begun);
    options.onProgress?.(
      `starting the name servers: ${plan.servers.length} servers in one BIND process${plan.servers.some((s) => s.engine === 'responder') ? ' and our responder' : ''}, in a network namespace of their own`,
    );
    supervisor = await startSupervisor(dir, options.startTimeoutMs ?? 300_000);
  } catch (error) {
    removeDir();
    throw error;
  }

  const commands = labCommands(supervisor.pid, {
    DNS_ROOT_HINTS: plan.hintsPath,
    ...(plan.trustAnchorsPath !== undefined && { DNS_TRUST_ANCHORS: plan.trustAnchorsPath }),
  });
  const hostBridges: Server[] = [];
  let stopping: Promise<void> | undefined;
  const running = (): void => {
    if (!supervisor.alive()) throw new Error('the lab has stopped');
  };
  const lab: Lab = {
    hintsPath: plan.hintsPath,
    ...(plan.trustAnchorsPath !== undefined && { trustAnchorsPath: plan.trustAnchorsPath }),
    ...(plan.tlsCaPath !== undefined && { tlsCaPath: plan.tlsCaPath }),
    dir,
    servers: plan.servers,
    domains: plan.domains,
    pid: supervisor.pid,
    addressesOf(serverName) {
      const name = (serverName.endsWith('.') ? serverName : `${serverName}.`).toLowerCase();
      const server = plan.servers.find((s) => s.name === name);
      if (server === undefined) throw new Error(`the lab has no server named ${name}`);
      return server.addresses;
    },
    spawn(command, args = [], spawnOptions = {}) {
      running();
      return commands.spawn(command, args, spawnOptions);
    },
    async exec(command, args = [], execOptions = {}) {
      running();
      return commands.exec(command, args, execOptions);
    },
    async query(server, question, queryOptions = {}) {
      const target =
        typeof server !== 'string' ? server : isIP(server) !== 0 ? { address: server } : { address: lab.addressesOf(server)[0] };
      const name = typeof question.name === 'string' ? question.name : question.name.toString();
      return fromWire(
        await supervisor.request<WireQueryResult>({ op: 'query', server: target, question: { ...question, name }, options: queryOptions }),
      );
    },
    async forward(port, host = '127.0.0.1', hostPort = 0) {
      const socketPath = join(dir, `forward-${host.replace(/[^0-9a-f.]/gi, '_')}-${port}.sock`);
      const result = await supervisor.request<ForwardResult>({ op: 'forward', socketPath, host, port });
      if (!result.ok) throw new Error(`cannot forward to ${host}:${port} inside the lab: ${result.error}`);
      const server = await bridge({ host: '127.0.0.1', port: hostPort }, { path: socketPath }).catch((error: NodeJS.ErrnoException) => {
        throw new Error(
          error.code === 'EADDRINUSE'
            ? `port ${hostPort} on the host's 127.0.0.1 is taken already`
            : `cannot listen on the host's 127.0.0.1:${hostPort}: ${error.message}`,
        );
      });
      hostBridges.push(server);
      return (server.address() as AddressInfo).port;
    },
    startup: { ...supervisor.startup, world: worldMs, total: Math.round(performance.now() - begun) },
    stop() {
      stopping ??= (async () => {
        for (const server of hostBridges) server.close();
        await supervisor.stop();
        removeDir();
      })();
      return stopping;
    },
  };
  return lab;
}

function fromWire(wire: WireQueryResult): QueryResult {
  const common = {
    transport: wire.transport,
    rttMs: wire.rttMs,
    truncatedUdp: 'truncatedUdp' in wire && wire.truncatedUdp ? decodeMessage(wire.truncatedUdp) : undefined,
  };
  switch (wire.outcome) {
    case 'response':
      return { ...common, outcome: 'response', bytes: wire.bytes, from: wire.from, message: decodeMessage(wire.bytes) };
    case 'malformed':
      try {
        decodeMessage(wire.bytes);
        throw new Error('the lab reported an undecodable answer that decodes');
      } catch (error) {
        if (!(error instanceof DnsDecodeError)) throw error;
        return { ...common, outcome: 'malformed', bytes: wire.bytes, error };
      }
    case 'timeout':
      return { ...common, outcome: 'timeout' };
    case 'network-error':
      return { ...common, outcome: 'network-error', error: new Error(wire.error) };
  }
}
