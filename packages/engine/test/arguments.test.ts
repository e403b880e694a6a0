import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine, UsageError } from '../src/cli/arguments.ts';

test('a plain domain gets the defaults', () => {
  const options = parseCommandLine(['example.com']);
  assert.equal(options.action, 'run');
  assert.equal(options.domain, 'example.com');
  assert.deepEqual(options.output, {
    level: 'INFO',
    locale: 'en',
    format: 'table',
    raw: false,
    showModule: false,
    showTestcase: false,
    elapsed: false,
    count: false,
  });
  assert.equal(options.progress, true);
  assert.equal(options.stopLevel, undefined);
  assert.deepEqual(options.nameservers, []);
  assert.equal(options.ipv4, undefined);
});

test('every option is read', () => {
  const options = parseCommandLine([
    'example.com',
    '--ns',
    'ns1.example.com/192.0.2.1',
    '--ns',
    'ns2.example.net',
    '--ns',
    'ns3.example.com/2001:db8::53',
    '--ds',
    '12345,13,2,ABCDEF01',
    '--profile',
    'p.json',
    '--hints',
    'root.hints',
    '--level',
    'info',
    '--locale',
    'sv_SE',
    '--json',
    '--no-ipv6',
    '--test',
    'Basic',
    '--test',
    'Basic/Basic02',
    '--raw',
    '--show-module',
    '--show-testcase',
    '--elapsed',
    '--count',
    '--no-progress',
    '--stop-level',
    'warning',
    '--save',
    'run.json',
  ]);
  assert.deepEqual(options.nameservers, [
    { ns: 'ns1.example.com', ip: '192.0.2.1' },
    { ns: 'ns2.example.net' },
    { ns: 'ns3.example.com', ip: '2001:db8::53' },
  ]);
  assert.deepEqual(options.dsInfo, [{ keytag: 12345, algorithm: 13, digtype: 2, digest: 'abcdef01' }]);
  assert.equal(options.profileFile, 'p.json');
  assert.equal(options.hintsFile, 'root.hints');
  assert.deepEqual(options.output, {
    level: 'INFO',
    locale: 'sv',
    format: 'json',
    raw: true,
    showModule: true,
    showTestcase: true,
    elapsed: true,
    count: true,
  });
  assert.equal(options.progress, false);
  assert.equal(options.stopLevel, 'WARNING');
  assert.equal(options.saveFile, 'run.json');
  assert.equal(options.ipv6, false);
  assert.equal(options.ipv4, undefined);
  assert.deepEqual(options.only, ['Basic', 'Basic/Basic02']);
});

test('bad arguments give one clear line', () => {
  const cases: [string[], RegExp][] = [
    [[], /domain to test is missing/],
    [['a.example', 'b.example'], /only one domain/],
    [['example.com', '--ns', 'ns1.example.com/999.1.1.1'], /not an IP address/],
    [['example.com', '--ds', '1,2,3'], /keytag,algorithm,digest-type,digest/],
    [['example.com', '--ds', '70000,13,2,ab'], /key tag must be a number/],
    [['example.com', '--ds', '1,13,2,xyz'], /hexadecimal/],
    [['example.com', '--level', 'LOUD'], /not a severity level/],
    [['example.com', '--locale', 'de'], /choose one of/],
    [['example.com', '--frobnicate'], /frobnicate/],
    [['example.com', '--test', 'Basic/'], /Module or Module\/TestCase/],
    [['example.com', '--stop-level', 'SOON'], /--stop-level SOON: not a severity level/],
    [['example.com', '--json', '--json-stream'], /cannot be combined/],
    [['--version', '--list-tests'], /cannot be combined/],
    [['--restore', 'a.json', '--save', 'b.json'], /cannot be combined/],
    [['--list-tests', 'example.com'], /takes no domain/],
    [['--restore'], /^--restore needs a value$/],
  ];
  for (const [argv, message] of cases) {
    assert.throws(
      () => parseCommandLine(argv),
      (error: Error) => error instanceof UsageError && message.test(error.message) && !error.message.includes('\n'),
      argv.join(' '),
    );
  }
});

test('information and restore need no domain', () => {
  assert.equal(parseCommandLine(['--version']).action, 'version');
  assert.equal(parseCommandLine(['--list-tests', '--locale', 'fi']).action, 'list-tests');
  assert.equal(parseCommandLine(['--dump-profile', '--no-ipv4']).ipv4, false);
  const restore = parseCommandLine(['--restore', 'run.json', '--json-stream', '--level', 'debug']);
  assert.equal(restore.action, 'restore');
  assert.equal(restore.restoreFile, 'run.json');
  assert.equal(restore.output.format, 'json-stream');
  assert.equal(restore.output.level, 'DEBUG');
});
