import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine, UsageError } from '../src/cli/arguments.ts';

test('a plain domain gets the defaults', () => {
  const options = parseCommandLine(['example.com']);
  assert.equal(options.domain, 'example.com');
  assert.equal(options.level, 'INFO');
  assert.equal(options.locale, 'en');
  assert.equal(options.json, false);
  assert.deepEqual(options.nameservers, []);
  assert.equal(options.ipv4, undefined);
});

test('every option is read', () => {
  const options = parseCommandLine([
    'example.com', '--ns', 'ns1.example.com/192.0.2.1', '--ns', 'ns2.example.net', '--ns', 'ns3.example.com/2001:db8::53',
    '--ds', '12345,13,2,ABCDEF01', '--profile', 'p.json', '--hints', 'root.hints', '--level', 'info', '--locale', 'sv_SE',
    '--json', '--no-ipv6', '--test', 'Basic', '--test', 'Basic/Basic02',
  ]);
  assert.deepEqual(options.nameservers, [{ ns: 'ns1.example.com', ip: '192.0.2.1' }, { ns: 'ns2.example.net' }, { ns: 'ns3.example.com', ip: '2001:db8::53' }]);
  assert.deepEqual(options.dsInfo, [{ keytag: 12345, algorithm: 13, digtype: 2, digest: 'abcdef01' }]);
  assert.equal(options.profileFile, 'p.json');
  assert.equal(options.hintsFile, 'root.hints');
  assert.equal(options.level, 'INFO');
  assert.equal(options.locale, 'sv');
  assert.equal(options.json, true);
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
  ];
  for (const [argv, message] of cases) {
    assert.throws(() => parseCommandLine(argv), (error: Error) => error instanceof UsageError && message.test(error.message) && !error.message.includes('\n'), argv.join(' '));
  }
});
