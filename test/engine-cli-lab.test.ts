// dnscheck's options and the message catalogue against real name servers: every finding the lab
// catalogue provokes renders in every locale, saved runs come back the same without the network,
// and each output option does what it says on a real run.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { decodeMessage } from '@app/dns';
import { formatFinding, locales, type Finding } from '@app/engine';
import { commandLineDomain as strip, labUnavailableReason, scenarioDomain, startLab, type Lab } from '@app/lab';
import { ownScenarios } from './support/lab-engines.ts';

const dnscheck = resolve(import.meta.dirname, '../packages/engine/bin/dnscheck.js');

type Shown = Finding & { message?: string };

const skipReason = await labUnavailableReason();
// The variants served by other implementations are test/engine-implementations-lab.test.ts's.
const scenarios = ownScenarios().filter((name) => {
  try {
    scenarioDomain(name);
    return true;
  } catch {
    return false;
  }
});

describe('dnscheck in the lab', { skip: skipReason ?? false }, () => {
  let lab: Lab;
  let dir: string;
  const cli = (args: string[]) => lab.exec(process.execPath, [dnscheck, ...args], { timeoutMs: 180_000 });
  const domainArgs = (domain: string): string[] => [strip(domain), '--hints', lab.hintsPath];

  // One saved live run per catalogue domain, shared by the tests below.
  const live = new Map<string, Promise<{ file: string; code: number | null; findings: Shown[] }>>();
  function liveRun(scenario: string): Promise<{ file: string; code: number | null; findings: Shown[] }> {
    if (!live.has(scenario)) {
      const file = join(dir, `${basename(scenario, '.yaml')}.json`);
      live.set(
        scenario,
        cli([...domainArgs(scenarioDomain(scenario)), '--json', '--level', 'DEBUG3', '--no-progress', '--save', file]).then((result) => {
          assert.ok(result.stdout.startsWith('['), `${scenario}: no JSON (exit ${result.code}): ${result.stderr.slice(-300)}`);
          return { file, code: result.code, findings: JSON.parse(result.stdout) as Shown[] };
        }),
      );
    }
    return live.get(scenario)!;
  }

  before(async () => {
    lab = await startLab(scenarios);
    dir = await mkdtemp(join(tmpdir(), 'dnscheck-lab-'));
    // Two runs at a time: the machine's two cores are shared with the rest of the suite.
    const queue = [...scenarios];
    await Promise.all(
      [0, 1].map(async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await liveRun(next);
      }),
    );
  });
  after(async () => {
    await lab?.stop();
  });

  test('every finding of the lab catalogue renders in every locale with all its arguments', async () => {
    const faults: string[] = [];
    let rendered = 0;
    for (const scenario of scenarios) {
      for (const finding of (await liveRun(scenario)).findings) {
        for (const locale of locales) {
          const text = formatFinding(finding, locale);
          rendered++;
          // '…' stands for an argument the finding lacks: only findings of an earlier engine may show it.
          if (/\{\w+\}/.test(text) || text.includes('…') || text.includes('undefined'))
            faults.push(`${scenario} ${locale} ${finding.module}:${finding.tag}: ${text}`);
          // Without a text the tag itself is shown; a finding a user sees must have one.
          if (!finding.level.startsWith('DEBUG') && text.startsWith(finding.tag))
            faults.push(`${scenario} ${locale} ${finding.module}:${finding.tag} has no text`);
        }
      }
    }
    assert.ok(locales.includes('sl'), 'Slovenian is among the locales rendered');
    assert.ok(rendered > locales.length * scenarios.length, 'the catalogue runs found something');
    assert.deepEqual(faults, []);
  });

  test("a restored run gives the live run's findings in each locale, without the network", async () => {
    // Restores run outside the lab's namespace, where no lab server can be reached.
    const restore = async (file: string, ...args: string[]): Promise<{ code: number; findings: Shown[] }> => {
      const result = await promisify(execFile)(process.execPath, [
        dnscheck,
        '--restore',
        file,
        '--json',
        '--level',
        'DEBUG3',
        ...args,
      ]).then(
        (done) => ({ ...done, code: 0 }),
        (error: { stdout: string; code: number }) => error,
      );
      return { code: result.code, findings: JSON.parse(result.stdout) as Shown[] };
    };
    // One scenario per locale, spread over the catalogue, each restored in English and in that locale.
    const step = Math.max(1, Math.floor(scenarios.length / locales.length));
    const queue = locales.map((locale, i) => [locale, scenarios[(i * step) % scenarios.length]] as const);
    await Promise.all(
      [0, 1].map(async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const [locale, scenario] = next;
          const { file, code, findings } = await liveRun(scenario);
          const english = await restore(file);
          assert.equal(english.code, code, `${scenario}: the exit code follows the findings`);
          assert.deepEqual(english.findings, findings, `${scenario}: en`);
          const other = await restore(file, '--locale', locale);
          assert.deepEqual(
            other.findings,
            findings.map((f) => ({ ...f, message: formatFinding(f, locale) })),
            `${scenario}: ${locale}`,
          );
        }
      }),
    );
  });

  test('--save keeps the profile and every query with the reply the engine got', async () => {
    const scenario = scenarios.find((s) => scenarioDomain(s) === 'lame.test.')!;
    const saved = JSON.parse(await readFile((await liveRun(scenario)).file, 'utf8')) as {
      profile: { net: { ipv4: boolean } };
      exchanges: { server: string; qname: string; qtype: number; reply?: string }[];
    };
    assert.equal(saved.profile.net.ipv4, true);
    assert.ok(saved.exchanges.length > 0);
    const answered = saved.exchanges.filter((e) => e.reply);
    assert.ok(answered.length > 0);
    for (const exchange of answered) {
      const reply = decodeMessage(Buffer.from(exchange.reply!, 'base64'));
      assert.equal(reply.question[0]?.name.toString().toLowerCase().replace(/\.$/, ''), exchange.qname.toLowerCase().replace(/\.$/, ''));
      assert.match(exchange.server, /\/[0-9a-f.:]+$/);
    }
  });

  test('--stop-level stops at the first finding at that level', async () => {
    const healthy = await cli([...domainArgs('healthy.test'), '--json', '--level', 'DEBUG', '--no-progress', '--stop-level', 'INFO']);
    const found = JSON.parse(healthy.stdout) as Shown[];
    assert.equal(found.filter((f) => f.level === 'INFO').length >= 1, true);
    assert.ok(!found.some((f) => f.tag === 'B01_PARENT_FOUND'), 'nothing after the version finding');
    assert.match(healthy.stderr, /Stopped at the first finding at INFO or above/);
    const full = (await liveRun(scenarios.find((s) => scenarioDomain(s) === 'lame.test.')!)).findings;
    const lame = await cli([
      ...domainArgs('lame.test'),
      '--json',
      '--level',
      'DEBUG',
      '--no-progress',
      '--stop-level',
      'ERROR',
      '--locale',
      'nb',
    ]);
    assert.equal(lame.code, 4);
    const stopped = JSON.parse(lame.stdout) as Shown[];
    // Documentation addresses are ERROR in 9.0.1's Address01: the first finding at ERROR in the lab.
    assert.ok(stopped.some((f) => f.tag === 'A01_DOCUMENTATION_ADDR' && f.level === 'ERROR'));
    // Nameserver08 asks with a randomly cased name (and may answer before the stop, as every test case starts at once).
    const finding = (f: Pick<Shown, 'testcase' | 'tag' | 'args'>): string =>
      `${f.testcase} ${f.tag} ${JSON.stringify(f.args)}`.toLowerCase();
    const inFull = new Set(full.map(finding));
    assert.deepEqual(
      stopped.filter((f) => !inFull.has(finding(f))),
      [],
      'a stopped run finds nothing the full run does not',
    );
    assert.match(lame.stderr, /Stoppet ved første funn på nivå ERROR eller høyere/);
  });

  test('--json-stream prints each finding as one JSON line, the same findings as --json', async () => {
    const stream = await cli([...domainArgs('lame.test'), '--json-stream', '--no-progress', '--locale', 'es']);
    const lines = stream.stdout.trimEnd().split('\n');
    const streamed = lines.map((line) => JSON.parse(line) as Shown);
    const whole = JSON.parse((await cli([...domainArgs('lame.test'), '--json', '--no-progress', '--locale', 'es'])).stdout) as Shown[];
    // Nameserver08 asks with a randomly cased name, so two runs differ only in that name's case.
    const key = (f: Shown): string => `${f.testcase} ${f.tag} ${f.level} ${JSON.stringify(f.args)} ${f.message}`.toLowerCase();
    assert.deepEqual(streamed.map(key).sort(), whole.map(key).sort());
    assert.ok(
      streamed.some((f) => f.message?.includes('reservadas para documentación')),
      'Spanish text',
    );
    assert.equal(stream.code, 4);
  });

  test('the table on a real run: columns by switch, raw tags, counts and elapsed time', async () => {
    const table = await cli([
      ...domainArgs('lame.test'),
      '--raw',
      '--show-module',
      '--show-testcase',
      '--count',
      '--elapsed',
      '--level',
      'NOTICE',
      '--no-progress',
    ]);
    const lines = table.stdout.split('\n');
    assert.match(lines[0], /^Seconds\s+Level\s+Module\s+Test case\s+Message$/);
    // Raw tags: the servers' documentation addresses show as tag and arguments, not as text.
    assert.ok(
      lines.some((line) =>
        /^\d+\.\d\d\s+ERROR\s+ADDRESS\s+Address01\s+A01_DOCUMENTATION_ADDR ns_list=\S*ns2\.lame\.test\/203\.0\.113\.20\b/.test(line),
      ),
      table.stdout,
    );
    const errors = lines.filter((line) => /^\d+\.\d\d\s+ERROR\s/.test(line));
    assert.match(table.stdout, new RegExp(`^ {2}ERROR +${errors.length}$`, 'm'));
    assert.match(table.stdout, /^Elapsed time: \d+\.\d\d s$/m);
    assert.equal(table.stderr, '');
  });

  test('progress: plain lines in a log, a redrawn bar on a terminal', async () => {
    const logged = await cli([...domainArgs('healthy.test'), '--level', 'ERROR']);
    const steps = logged.stderr.trimEnd().split('\n');
    assert.match(steps.at(-1)!, /^progress 100% \((\d+) of \1 test cases, \d+\.\d s\)$/);
    // script(1) gives the command a terminal, as a person running it has.
    const command = [process.execPath, dnscheck, ...domainArgs('healthy.test'), '--locale', 'fi'].join(' ');
    const terminal = await lab.exec('script', ['-qec', command, '/dev/null'], { timeoutMs: 120_000 });
    const frames = terminal.stdout.split('\r\x1b[2K');
    assert.ok(
      frames.some((frame) => /^\[[#-]{24}\] +\d+% · \d+\/\d+ testitapausta · \d+\.\d s$/.test(frame)),
      JSON.stringify(frames.slice(0, 5)),
    );
    assert.match(frames.at(-1)!, /^Taso\s+Viesti/, 'the bar is cleared before the table');
  });
});
