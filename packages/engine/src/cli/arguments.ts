// The dnscheck command line, parsed into a test input. Errors are one line, meant to be shown with the usage.
import { isIP } from 'node:net';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { distance as editDistance } from 'fastest-levenshtein';
import { isLevel, type Level } from '../level.ts';
import type { DsInput, NameServerInput } from '../input.ts';
import { locales } from '../catalogue/catalogue.ts';

export const usage =
  'usage: dnscheck <domain> [--ns name[/ip]]... [--ds keytag,alg,digtype,digest]... [--profile name|file] [--hints file]\n' +
  '                [--tls-ca file]\n' +
  '                [--level LEVEL] [--locale xx] [--json | --json-run | --json-stream | --raw] [--count] [--elapsed] [--show-module]\n' +
  '                [--show-testcase] [--no-progress] [--stop-level LEVEL] [--no-ipv4] [--no-ipv6] [--test Module[/TestCase]]\n' +
  '                [--save file] [--nagios] [--chain-json file] [--chain-svg file]\n' +
  '       dnscheck --restore file [--level LEVEL] [--locale xx] [output options] [--chain-json file] [--chain-svg file]\n' +
  '       dnscheck --version | --list-tests [--locale xx] | --dump-profile [--profile name|file] [--no-ipv4] [--no-ipv6]';

export const help = `dnscheck: tests the DNS health of one zone and prints what it finds.

${usage}

What to test
  --ns name[/ip]      test this name server instead of the delegation (undelegated test); repeatable
  --ds k,a,d,digest   a DS record (key tag, algorithm, digest type, hex digest) for an undelegated test; repeatable
  --profile name|file "default" (the reference's test cases), "extended" (also those beyond it: the
                      Compliance and Transport modules), or a file in the reference JSON format merged over the default
  --hints file        root hints (a zone file of the root's NS and addresses) instead of IANA's
  --tls-ca file       PEM CA certificates trusted beside the system's when the Transport module
                      (extended profile) checks the name servers' DoT and DoH certificates
  --no-ipv4, --no-ipv6  send nothing over that IP version
  --test M[/TestCase] run only this module or test case; repeatable
  --stop-level LEVEL  stop the run at the first finding at LEVEL or above

What to show
  --level LEVEL       the lowest level shown: DEBUG3..DEBUG, INFO (default), NOTICE, WARNING, ERROR, CRITICAL
  --locale xx         language of the messages and headers: ${locales.join(', ')} (default en)
  --json              one JSON array of findings instead of a table
  --json-run          one JSON object for the run: engine version, domain, elapsed time and findings
                      (docs/results.schema.json describes it and --json)
  --json-stream       one JSON object per line, each finding as it is made
  --raw               tags and arguments instead of text (with --json: no message field)
  --show-module       a Module column in the table
  --show-testcase     a Test case column in the table
  --elapsed           a column with the second each finding came, and the run's time at the end
  --count             the number of findings per level at the end
  --no-progress       no progress on stderr (a bar on a terminal, plain lines otherwise)
  --nagios            be a monitoring plugin: one status line (OK, WARNING, CRITICAL, UNKNOWN) with
                      performance data, exit code 0, 1, 2 or 3, no progress

Saved runs
  --save file         also write the run to file: findings with arguments, the profile, every query and answer
  --restore file      show a saved run again, in any --locale and --level, without sending a query

The chain of trust
  --chain-json file   also write the delegation and DNSSEC chain, root to zone, in DNSViz grok's JSON shape
  --chain-svg file    also draw that chain as an SVG picture (zones, keys, DS, signatures, by status)

Other
  --version           the versions of the engine and of its DNS library
  --list-tests        every module and test case, described in --locale
  --dump-profile      the effective profile (default, --profile, --no-ipv4/6) as JSON
  -h, --help          this text

Exit code: 0 when nothing is worse than NOTICE, 3 WARNING, 4 ERROR, 5 CRITICAL; 2 for a bad argument,
1 when the test could not finish. With --nagios: 0 OK, 1 WARNING, 2 CRITICAL (ERROR or CRITICAL), 3 UNKNOWN.`;

export const wantsHelp = (argv: readonly string[]): boolean => argv.some((arg) => arg === '--help' || arg === '-h');

/** What the command line asks for: a run, a saved run shown again, or information only. */
export type Action = 'run' | 'restore' | 'version' | 'list-tests' | 'dump-profile';

export interface OutputOptions {
  level: Level;
  locale: string;
  format: 'table' | 'json' | 'json-run' | 'json-stream' | 'nagios';
  raw: boolean;
  showModule: boolean;
  showTestcase: boolean;
  elapsed: boolean;
  count: boolean;
}

export interface CliOptions {
  action: Action;
  domain: string;
  nameservers: NameServerInput[];
  dsInfo: DsInput[];
  profileFile?: string;
  hintsFile?: string;
  /** --tls-ca: a PEM file of CA certificates for the Transport module. */
  tlsCaFile?: string;
  output: OutputOptions;
  progress: boolean;
  stopLevel?: Level;
  saveFile?: string;
  restoreFile?: string;
  chainJsonFile?: string;
  chainSvgFile?: string;
  ipv4?: boolean;
  ipv6?: boolean;
  only: string[];
}

export class UsageError extends Error {
  override name = 'UsageError';
}

function parseNameServer(text: string): NameServerInput {
  const slash = text.indexOf('/');
  const ns = (slash === -1 ? text : text.slice(0, slash)).trim();
  const ip = slash === -1 ? undefined : text.slice(slash + 1).trim();
  if (!ns) throw new UsageError(`--ns needs a name server name: "${text}"`);
  if (ip !== undefined && isIP(ip) === 0) throw new UsageError(`--ns ${text}: "${ip}" is not an IP address`);
  return ip ? { ns, ip } : { ns };
}

function parseDs(text: string): DsInput {
  const parts = text.split(',').map((part) => part.trim());
  const [keytag, algorithm, digtype, digest] = parts;
  if (parts.length !== 4 || keytag === undefined || algorithm === undefined || digtype === undefined || digest === undefined) {
    throw new UsageError(`--ds ${text}: expected keytag,algorithm,digest-type,digest`);
  }
  const number = (value: string, what: string, max: number): number => {
    if (!/^\d+$/.test(value) || Number(value) > max) throw new UsageError(`--ds ${text}: ${what} must be a number from 0 to ${max}`);
    return Number(value);
  };
  if (!/^[0-9a-f]+$/i.test(digest) || digest.length % 2 !== 0) throw new UsageError(`--ds ${text}: the digest must be hexadecimal`);
  return {
    keytag: number(keytag, 'the key tag', 65535),
    algorithm: number(algorithm, 'the algorithm', 255),
    digtype: number(digtype, 'the digest type', 255),
    digest: digest.toLowerCase(),
  };
}

function parseTest(text: string): string {
  if (!/^[A-Za-z][A-Za-z_]*[0-9]*(\/[A-Za-z]+[0-9]+)?$/.test(text))
    throw new UsageError(`--test ${text}: expected Module or Module/TestCase`);
  return text;
}

function parseLevel(value: string, option: string): Level {
  const level = value.toUpperCase();
  if (!isLevel(level)) throw new UsageError(`${option} ${value}: not a severity level`);
  return level;
}

const optionSpecs = {
  ns: { type: 'string', multiple: true },
  ds: { type: 'string', multiple: true },
  profile: { type: 'string' },
  hints: { type: 'string' },
  'tls-ca': { type: 'string' },
  level: { type: 'string' },
  locale: { type: 'string' },
  json: { type: 'boolean' },
  'json-run': { type: 'boolean' },
  'json-stream': { type: 'boolean' },
  raw: { type: 'boolean' },
  'show-module': { type: 'boolean' },
  'show-testcase': { type: 'boolean' },
  elapsed: { type: 'boolean' },
  count: { type: 'boolean' },
  'no-progress': { type: 'boolean' },
  nagios: { type: 'boolean' },
  'stop-level': { type: 'string' },
  save: { type: 'string' },
  restore: { type: 'string' },
  'chain-json': { type: 'string' },
  'chain-svg': { type: 'string' },
  version: { type: 'boolean' },
  'list-tests': { type: 'boolean' },
  'dump-profile': { type: 'boolean' },
  'no-ipv4': { type: 'boolean' },
  'no-ipv6': { type: 'boolean' },
  test: { type: 'string', multiple: true },
} as const satisfies ParseArgsConfig['options'];

const optionNames = Object.keys(optionSpecs).map((name) => `--${name}`);

// parseArgs's own messages are long and suggest '--' to a user who mistyped an option.
function parseArgsProblem(error: Error & { code?: string }): string {
  const option = /'(-[^' ]*)/.exec(error.message)?.[1] ?? '';
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const near = nearestOption(option.split('=')[0] ?? option);
    return `unknown option ${option}${near ? ` (did you mean ${near}?)` : ''}`;
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return /argument missing/.test(error.message) ? `${option} needs a value` : `${option} takes no value`;
  }
  return error.message.split('\n')[0] ?? 'bad arguments';
}

/** The option a mistyped one most likely meant: zonemaster-cli's underscores, or at most two typos away. */
function nearestOption(typed: string): string | undefined {
  const dashed = typed.replaceAll('_', '-').toLowerCase();
  if (optionNames.includes(dashed)) return dashed;
  let best: { name: string; distance: number } | undefined;
  for (const name of optionNames) {
    const distance = editDistance(dashed, name);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

export function parseCommandLine(argv: readonly string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: optionSpecs,
    });
  } catch (error) {
    throw new UsageError(parseArgsProblem(error as Error & { code?: string }));
  }
  const { values, positionals } = parsed;
  const infoActions = (['version', 'list-tests', 'dump-profile'] as const).filter((name) => values[name]);
  if (infoActions.length > 1) throw new UsageError(`--${infoActions[0]} and --${infoActions[1]} cannot be combined`);
  const jsonFormats = (['json', 'json-run', 'json-stream'] as const).filter((name) => values[name]);
  if (jsonFormats.length > 1) throw new UsageError(`--${jsonFormats[0]} and --${jsonFormats[1]} cannot be combined`);
  const formats = (['json', 'json-run', 'json-stream', 'restore'] as const).filter(
    (name) => values[name] !== undefined && values[name] !== false,
  );
  if (values.nagios && formats.length > 0) throw new UsageError(`--nagios and --${formats[0]} cannot be combined`);
  if (values.restore !== undefined && values.save !== undefined) throw new UsageError('--save and --restore cannot be combined');
  const action: Action = infoActions[0] ?? (values.restore !== undefined ? 'restore' : 'run');
  const needsDomain = infoActions.length === 0 && values.restore === undefined;
  if (needsDomain && (positionals.length !== 1 || positionals[0] === undefined || positionals[0] === '')) {
    throw new UsageError(
      positionals.length === 0 ? 'the domain to test is missing' : `only one domain can be tested at a time, got: ${positionals.join(' ')}`,
    );
  }
  if (!needsDomain && positionals.length > 0) throw new UsageError(`--${action} takes no domain, got: ${positionals.join(' ')}`);
  const locale = (values.locale ?? 'en').slice(0, 2).toLowerCase();
  if (!locales.includes(locale)) throw new UsageError(`--locale ${values.locale}: choose one of ${locales.join(', ')}`);
  return {
    action,
    domain: positionals[0] ?? '',
    nameservers: (values.ns ?? []).map(parseNameServer),
    dsInfo: (values.ds ?? []).map(parseDs),
    ...(values.profile !== undefined && { profileFile: values.profile }),
    ...(values.hints !== undefined && { hintsFile: values.hints }),
    ...(values['tls-ca'] !== undefined && { tlsCaFile: values['tls-ca'] }),
    output: {
      level: parseLevel(values.level ?? 'INFO', '--level'),
      locale,
      format: values.nagios
        ? 'nagios'
        : values.json
          ? 'json'
          : values['json-run']
            ? 'json-run'
            : values['json-stream']
              ? 'json-stream'
              : 'table',
      raw: values.raw ?? false,
      showModule: values['show-module'] ?? false,
      showTestcase: values['show-testcase'] ?? false,
      elapsed: values.elapsed ?? false,
      count: values.count ?? false,
    },
    progress: !values['no-progress'] && !values.nagios,
    ...(values['stop-level'] !== undefined && { stopLevel: parseLevel(values['stop-level'], '--stop-level') }),
    ...(values.save !== undefined && { saveFile: values.save }),
    ...(values.restore !== undefined && { restoreFile: values.restore }),
    ...(values['chain-json'] !== undefined && { chainJsonFile: values['chain-json'] }),
    ...(values['chain-svg'] !== undefined && { chainSvgFile: values['chain-svg'] }),
    ...(values['no-ipv4'] && { ipv4: false }),
    ...(values['no-ipv6'] && { ipv6: false }),
    only: (values.test ?? []).map(parseTest),
  };
}
