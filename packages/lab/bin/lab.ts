#!/usr/bin/env node
// lab run <scenario> -- <command...> | lab diff [scenario] [domain] | lab demo | lab list
import {
  catalogueListing,
  catalogueNames,
  LabUnavailableError,
  runDemo,
  runDiff,
  catalogueTable,
  scenarioReport,
  startLab,
  ScenarioError,
  parseLatency,
  describeLatency,
  type Latency,
} from '../src/index.ts';

const usage = `usage:
  lab run [--latency 50ms] [--signed-root] <scenario>[,<scenario>...] -- <command> [args...]
      Starts the lab and runs the command inside its network namespace. The root hints path is in
      $DNS_ROOT_HINTS, and any argument "{hints}" is replaced by it. --signed-root signs the root
      and test. (as the demo does); the root's trust anchor is then in $DNS_TRUST_ANCHORS and
      "{trust-anchors}", and the lab's open recursors validate with it.
  lab diff [--latency 50ms] [--signed-root] [<scenario> [<domain>]]
      Runs zonemaster-cli and our dnscheck on the scenario's domain and compares their findings;
      without a scenario, over the whole catalogue as one table.
--latency makes every server wait that long before each answer (a range such as 20-80ms draws
each delay from it), as on the Internet; LAB_LATENCY does the same for any command.
  lab demo [--port N]
      Starts the catalogue with the domain health service in it, shows what it finds in a few
      domains, then keeps running until Ctrl-C and prints what to try. The service's web interface
      and JSON-RPC API answer on 127.0.0.1:N (any free port without --port).
  lab list
      The catalogue's scenarios: name, the domain it serves, what is wrong with it.
A scenario is a catalogue name (see lab list), a path to a .yaml/.json file, or big:N (big.test.
with N generated children; big alone is big:10000).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...afterCommand] = argv;
  const latencyAt = afterCommand.indexOf('--latency');
  const dashesAt = afterCommand.indexOf('--');
  let latency: Latency | undefined;
  let rest = afterCommand;
  if (latencyAt >= 0 && (dashesAt < 0 || latencyAt < dashesAt)) {
    latency = parseLatency(afterCommand[latencyAt + 1] ?? '');
    rest = afterCommand.toSpliced(latencyAt, 2);
  }
  // Before any '--': after it, the words are the command's.
  const signedAt = rest.indexOf('--signed-root');
  const signedRoot = signedAt >= 0 && (rest.indexOf('--') < 0 || signedAt < rest.indexOf('--'));
  if (signedRoot) rest = rest.toSpliced(signedAt, 1);
  switch (command) {
    case 'run': {
      const dashes = rest.indexOf('--');
      const scenario = rest[0];
      const commandLine = dashes >= 0 ? rest.slice(dashes + 1) : [];
      if (scenario === undefined || dashes !== 1 || commandLine.length === 0) return fail(usage);
      const lab = await startLab(scenario.split(','), { latency, signedRoot });
      const stop = (): void => void lab.stop().then(() => process.exit(130));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const anchors = lab.trustAnchorsPath === undefined ? '' : `; trust anchor in ${lab.trustAnchorsPath} (DNS_TRUST_ANCHORS)`;
      console.error(
        `lab: ${lab.servers.length} servers up${latency ? `, answering after ${describeLatency(latency)}` : ''}; root hints in ${lab.hintsPath} (DNS_ROOT_HINTS)${anchors}`,
      );
      try {
        const placeholders: Record<string, string | undefined> = { '{hints}': lab.hintsPath, '{trust-anchors}': lab.trustAnchorsPath };
        const [program, ...args] = commandLine.map((arg) => placeholders[arg] ?? arg);
        const result = await lab.exec(program, args, { stdio: 'inherit' });
        return result.code ?? 1;
      } finally {
        await lab.stop();
      }
    }
    case 'diff': {
      const [scenario, domain] = rest;
      if (scenario === undefined) {
        const rows = await runDiff(catalogueNames(), { latency, signedRoot, onRow: (row) => console.error(`lab: ${row.scenario} done`) });
        console.log(catalogueTable(rows));
      } else {
        const [row] = await runDiff([scenario], { domain, latency, signedRoot });
        console.log(scenarioReport(row));
      }
      return 0;
    }
    case 'demo': {
      const portAt = rest.indexOf('--port');
      const port = portAt < 0 ? undefined : Number(rest[portAt + 1]);
      if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65535))
        return fail(`lab demo: --port takes a port number (1-65535), not "${rest[portAt + 1] ?? ''}"\n\n${usage}`);
      // The first Ctrl-C stops the lab cleanly; a second one does not wait for that.
      const stop = new AbortController();
      const onSignal = (): void => {
        if (stop.signal.aborted) process.exit(130);
        console.log('\nStopping the lab…');
        stop.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      await runDemo((line) => console.log(line), stop.signal, { port });
      return 0;
    }
    case 'list':
      for (const line of catalogueListing()) console.log(line);
      return 0;
    default:
      return fail(usage);
  }
}

function fail(message: string): number {
  console.error(message);
  return 2;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof LabUnavailableError || error instanceof ScenarioError) {
    console.error(`lab: ${error.message}`);
    process.exitCode = 2;
  } else {
    throw error;
  }
}
