// dnscheck: test one domain and print the findings; or show a saved run again; or tell what it knows.
import { readFile } from 'node:fs/promises';
import { dnsVersion, domainToAscii } from '@app/dns';
import { formatFinding, testCaseDescription, uiText } from '../catalogue/catalogue.ts';
import { domainNameFault } from '../domain-name-fault.ts';
import type { Finding } from '../finding.ts';
import { complianceLines, complianceTable } from '../run/compliance-table.ts';
import { parentDs } from '../run/parent-ds-table.ts';
import { transportsLines, transportsTable } from '../run/transports-table.ts';
import { zoneIntegrityLines, zoneIntegritySummary } from '../run/zone-integrity-summary.ts';
import { modules, selectTestCases } from '../run/registry.ts';
import { runTests } from '../run/run-tests.ts';
import { runTestsWithChain } from '../run/run-with-chain.ts';
import { levelRank } from '../level.ts';
import type { Exchange } from '../net/network.ts';
import { defaultProfile, isTestCaseEnabled, loadProfile, profileNames, shippedProfile, type Profile } from '../profile/profile.ts';
import { readRootHints, type RootHint } from '../resolver/root-hints.ts';
import { engineVersion, referenceVersion } from '../version.ts';
import { help, parseCommandLine, usage, UsageError, wantsHelp, type CliOptions, type OutputOptions } from './arguments.ts';
import { nagiosLine, nagiosStates, nagiosState, nagiosUnknown } from './nagios.ts';
import { countSummary, exitCodeFor, toJson, toJsonLine, toJsonRun, toTable, visible } from './output.ts';
import { startProgress, type Progress } from './progress.ts';
import { saveRun } from './saved-run.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal, so progress can redraw one line. */
  interactive: boolean;
  /** Called when a zone test has finished and its findings are shown (not for --version, --restore, ...). */
  testedZone?: () => void;
}

async function readInputFile(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the ${what} file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function asciiDomain(domain: string): string {
  let ascii: string;
  try {
    ascii = domainToAscii(domain).toLowerCase();
  } catch (error) {
    throw new UsageError(`${domain}: ${(error as Error).message}`);
  }
  const fault = domainNameFault(ascii);
  if (fault) throw new UsageError(`${domain}: ${fault}`);
  return ascii;
}

/** The profile the run uses: the default, a shipped one named by --profile, or a file over the default, with --no-ipv4/--no-ipv6 applied. */
async function effectiveProfile(options: CliOptions): Promise<Profile> {
  const shipped = profileNames.find((name) => name === options.profileFile);
  const base = shipped
    ? shippedProfile(shipped)
    : options.profileFile
      ? await readInputFile(options.profileFile, 'profile').then((text) => {
          try {
            return loadProfile(JSON.parse(text));
          } catch (error) {
            throw new UsageError(`${options.profileFile}: ${(error as Error).message}`);
          }
        })
      : defaultProfile();
  return { ...base, net: { ipv4: options.ipv4 ?? base.net.ipv4, ipv6: options.ipv6 ?? base.net.ipv6 } };
}

async function rootHints(options: CliOptions): Promise<RootHint[] | undefined> {
  if (!options.hintsFile) return undefined;
  const text = await readInputFile(options.hintsFile, 'hints');
  try {
    return readRootHints(text);
  } catch (error) {
    throw new UsageError(`${options.hintsFile}: ${(error as Error).message}`);
  }
}

/** The --tls-ca file's certificates; a file with none is refused, as a typo would otherwise trust nothing new. */
async function tlsCa(options: CliOptions): Promise<string | undefined> {
  if (!options.tlsCaFile) return undefined;
  const text = await readInputFile(options.tlsCaFile, 'TLS CA');
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new UsageError(`${options.tlsCaFile}: no PEM certificate (-----BEGIN CERTIFICATE-----) in it`);
  return text;
}

function listTests(locale: string): string {
  return modules
    .map((module) =>
      [
        uiText('list.module', locale, { module: module.name }),
        ...module.testCases.map((tc) => `  ${tc.id.padEnd(15)} ${testCaseDescription(tc.id, locale)}`),
      ].join('\n'),
    )
    .join('\n\n');
}

/**
 * Prints the findings the way the options ask. With --json-stream during a run the lines went out as
 * findings came (`streamed`); what is left then are the summaries.
 */
function show(
  findings: readonly Finding[],
  output: OutputOptions,
  io: CliIo,
  streamed: boolean,
  run: { domain: string; engineVersion: string; elapsed?: number },
): void {
  const shown = visible(findings, output.level);
  // Made from every finding, whatever --level shows.
  const compliance = complianceTable(findings);
  const parent = parentDs(findings, (f) => formatFinding(f, output.locale));
  const zoneIntegrity = zoneIntegritySummary(findings);
  const transports = transportsTable(findings);
  const beyond = { compliance, parent_ds: parent, zone_integrity: zoneIntegrity, transports };
  if (output.format === 'table') {
    io.stdout(`${toTable(shown, output)}\n`);
    if (compliance.length > 0)
      io.stdout(`\n${uiText('compliance.heading', output.locale)}\n${complianceLines(run.domain, compliance).join('\n')}\n`);
    if (parent !== undefined)
      io.stdout(
        `\n${uiText('parent_ds.heading', output.locale)} ${parent.action}: ${parent.reason}\n${parent.ds.map((d) => `${d}\n`).join('')}`,
      );
    if (zoneIntegrity) io.stdout(`\n${uiText('zone_integrity.heading', output.locale)}\n${zoneIntegrityLines(zoneIntegrity).join('\n')}\n`);
    if (transports.length > 0) io.stdout(`\n${uiText('transports.heading', output.locale)}\n${transportsLines(transports).join('\n')}\n`);
  } else if (output.format === 'json') io.stdout(`${toJson(shown, output, beyond)}\n`);
  else if (output.format === 'json-run') {
    // A restored run has no measured time; its last finding's time is the closest there is.
    const elapsed = run.elapsed ?? Math.max(0, ...findings.map((f) => f.timestamp));
    io.stdout(`${toJsonRun({ ...run, elapsed }, shown, output, beyond)}\n`);
  } else if (!streamed) for (const f of shown) io.stdout(`${toJsonLine(f, output)}\n`);
  // Summaries go with the table; beside JSON they would spoil it, so they go to stderr.
  const summary = output.format === 'table' ? io.stdout : io.stderr;
  if (output.count) summary(`${countSummary(findings, output)}\n`);
  if (output.elapsed) {
    const seconds = Math.max(0, ...findings.map((f) => f.timestamp));
    summary(`${uiText('elapsed', output.locale, { seconds: seconds.toFixed(2) })}\n`);
  }
}

async function run(options: CliOptions, io: CliIo): Promise<number> {
  const domain = asciiDomain(options.domain);
  const nameservers = options.nameservers.map((n) => ({ ...n, ns: asciiDomain(n.ns) }));
  const profile = await effectiveProfile(options);
  const hints = await rootHints(options);
  const ca = await tlsCa(options);
  const { output } = options;

  const total = selectTestCases(options.only).filter((p) => p.explicit || isTestCaseEnabled(profile, p.testCase.id)).length;
  const progress: Progress | undefined = options.progress
    ? startProgress(io.stderr, { interactive: io.interactive, total, locale: output.locale })
    : undefined;
  const stop = new AbortController();
  const made: Finding[] = [];
  const exchanges: Exchange[] = [];
  const onFinding = (finding: Finding): void => {
    made.push(finding);
    progress?.finding(finding);
    if (output.format === 'json-stream' && levelRank(finding.level) >= levelRank(output.level)) {
      progress?.clear();
      io.stdout(`${toJsonLine(finding, output)}\n`);
    }
    if (options.stopLevel && !stop.signal.aborted && levelRank(finding.level) >= levelRank(options.stopLevel)) stop.abort();
  };

  let findings: Finding[];
  const keepLog = Boolean(options.saveFile || options.chainJsonFile || options.chainSvgFile);
  const started = performance.now();
  try {
    // A kept log also gets the chain's own questions (the parents' keys and DS, say), so a saved run holds them.
    findings = await (keepLog ? runTestsWithChain : runTests)(
      { domain, nameservers, dsInfo: options.dsInfo, profile },
      {
        ...(hints && { rootHints: hints }),
        ...(ca !== undefined && { tlsCa: ca }),
        only: options.only,
        signal: stop.signal,
        onFinding,
        ...(keepLog && { onExchange: (exchange: Exchange) => exchanges.push(exchange) }),
        ...(progress && { onProgress: (percent: number) => progress.percent(percent) }),
      },
    );
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    // Stopped by --stop-level: what was found so far, in the order it was found.
    findings = [...made].sort((a, b) => a.timestamp - b.timestamp);
  } finally {
    progress?.finish();
  }
  if (options.saveFile) {
    await saveRun(options.saveFile, {
      engine: engineVersion,
      domain,
      input: { domain, nameservers, dsInfo: options.dsInfo, only: options.only },
      profile,
      findings,
      exchanges,
    });
  }
  if (options.chainJsonFile || options.chainSvgFile) {
    const { writeChain } = await import('../chain/write-chain.ts');
    await writeChain({ json: options.chainJsonFile, svg: options.chainSvgFile }, { domain, exchanges });
  }
  if (output.format === 'nagios') {
    io.stdout(`${nagiosLine(domain, findings, (performance.now() - started) / 1000, output.locale)}\n`);
    return nagiosStates[nagiosState(findings)];
  }
  show(findings, output, io, true, { domain, engineVersion, elapsed: (performance.now() - started) / 1000 });
  if (stop.signal.aborted) io.stderr(`${uiText('stopped', output.locale, { level: options.stopLevel ?? '' })}\n`);
  return exitCodeFor(findings);
}

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(argv)) {
    io.stdout(`${help}\n`);
    return 0;
  }
  try {
    const options = parseCommandLine(argv);
    switch (options.action) {
      case 'version':
        io.stdout(
          `dnscheck ${engineVersion}\nengine ${engineVersion}\n@app/dns ${dnsVersion}\nfollows Zonemaster engine ${referenceVersion.engine} (zonemaster-cli ${referenceVersion.cli})\n`,
        );
        return 0;
      case 'list-tests':
        io.stdout(`${listTests(options.output.locale)}\n`);
        return 0;
      case 'dump-profile':
        io.stdout(`${JSON.stringify(await effectiveProfile(options), null, 2)}\n`);
        return 0;
      case 'restore': {
        // Loaded only here: its schema library would be half of the modules every run loads.
        const { restoreRun } = await import('./restore-run.ts');
        const saved = await restoreRun(options.restoreFile!);
        if (options.chainJsonFile || options.chainSvgFile) {
          const { writeChain } = await import('../chain/write-chain.ts');
          await writeChain(
            { json: options.chainJsonFile, svg: options.chainSvgFile },
            { domain: saved.domain, exchanges: saved.exchanges, at: new Date(saved.savedAt) },
          );
        }
        show(saved.findings, options.output, io, false, { domain: saved.domain, engineVersion: saved.engine });
        return exitCodeFor(saved.findings);
      }
      case 'run': {
        const code = await run(options, io);
        io.testedZone?.();
        return code;
      }
    }
  } catch (error) {
    // A monitoring system reads stdout and the exit code only: anything that stopped the check is UNKNOWN.
    if (argv.includes('--nagios')) {
      io.stdout(
        `${nagiosUnknown(error instanceof UsageError ? error.message : `the check could not run: ${error instanceof Error ? error.message : String(error)}`)}\n`,
      );
      return nagiosStates.UNKNOWN;
    }
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`dnscheck: ${error.message}\n${usage}\n`);
    return 2;
  }
}
