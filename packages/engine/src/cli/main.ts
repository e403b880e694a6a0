// dnscheck: test one domain and print the findings.
import { readFile } from 'node:fs/promises';
import { domainToAscii } from '@app/dns';
import { runTests } from '../framework/run-tests.ts';
import { loadProfile } from '../profile/profile.ts';
import { readRootHints } from '../resolver/root-hints.ts';
import { help, parseCommandLine, usage, UsageError, wantsHelp, type CliOptions } from './arguments.ts';
import { exitCodeFor, toJson, toTable, visible } from './output.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal, so progress can redraw one line. */
  interactive: boolean;
}

async function readInputFile(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the ${what} file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function asciiDomain(domain: string): string {
  try {
    return domainToAscii(domain).toLowerCase();
  } catch (error) {
    throw new UsageError(`${domain}: ${(error as Error).message}`);
  }
}

async function prepare(options: CliOptions) {
  const profile = options.profileFile
    ? await readInputFile(options.profileFile, 'profile').then((text) => {
        try {
          return loadProfile(JSON.parse(text));
        } catch (error) {
          throw new UsageError(`${options.profileFile}: ${(error as Error).message}`);
        }
      })
    : undefined;
  const rootHints = options.hintsFile
    ? await readInputFile(options.hintsFile, 'hints').then((text) => {
        try {
          return readRootHints(text);
        } catch (error) {
          throw new UsageError(`${options.hintsFile}: ${(error as Error).message}`);
        }
      })
    : undefined;
  return { profile, rootHints };
}

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(argv)) {
    io.stdout(`${help}\n`);
    return 0;
  }
  let options: CliOptions;
  let prepared: Awaited<ReturnType<typeof prepare>>;
  try {
    options = parseCommandLine(argv);
    options.domain = asciiDomain(options.domain);
    prepared = await prepare(options);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`dnscheck: ${error.message}\n${usage}\n`);
    return 2;
  }
  const findings = await runTests(
    {
      domain: options.domain,
      ...(options.ipv4 !== undefined && { ipv4: options.ipv4 }),
      ...(options.ipv6 !== undefined && { ipv6: options.ipv6 }),
      nameservers: options.nameservers.map((n) => ({ ...n, ns: asciiDomain(n.ns) })),
      dsInfo: options.dsInfo,
      ...(prepared.profile && { profile: prepared.profile }),
    },
    {
      ...(prepared.rootHints && { rootHints: prepared.rootHints }),
      only: options.only,
      onProgress: (percent) => io.stderr(io.interactive ? `\rprogress ${percent}%${percent === 100 ? '\n' : ''}` : `progress ${percent}%\n`),
    },
  );
  const shown = visible(findings, options.level);
  io.stdout(`${options.json ? toJson(shown, options.locale) : toTable(shown, options.locale)}\n`);
  return exitCodeFor(findings);
}
